"""The documentation site in headless Chromium, served from 127.0.0.1: a rule page renders,
the site's search finds a rule by its code, and no page asks the network for anything.

Chromium is driven over its DevTools protocol (a page navigated, the DOM read, every request
the page makes seen). Skipped without Chromium (unless SSECONFORM_REQUIRE_CHROMIUM=1, as
``.ci/run`` sets) or without the docs extra.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import json
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import DOCS_SITE
from tests.docs_site import built_site
from tools.chromium import command, find

CHROMIUM = find()
if CHROMIUM is None:
    pytest.skip("Chromium is not installed (apt-get install chromium)", allow_module_level=True)
if importlib.util.find_spec("mkdocs") is None:
    pytest.skip("the docs extra is not installed", allow_module_level=True)

from websockets.sync.client import ClientConnection, connect  # noqa: E402  (after the skips)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


class Browser:
    """One headless Chromium page, over the DevTools protocol; every request URL it made."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.n = 0
        self.requested: list[str] = []

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        self.n += 1
        self.ws.send(json.dumps({"id": self.n, "method": method, "params": params}))
        while True:
            msg = json.loads(self.ws.recv(timeout=60))
            if msg.get("method") == "Network.requestWillBeSent":
                self.requested.append(msg["params"]["request"]["url"])
            if msg.get("id") == self.n:
                result: dict[str, Any] = msg.get("result", {})
                return result

    def js(self, expression: str) -> Any:
        got = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return got.get("result", {}).get("value")

    def wait_for(self, expression: str, seconds: float = 60.0) -> Any:
        """The expression's value once it is truthy (the page's scripts run on their own)."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.2)
        raise AssertionError(f"never true: {expression}")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The site built (strictly; tests/docs_site.py) and served on 127.0.0.1: its base URL."""
    out = built_site(tmp_path_factory)
    handler = functools.partial(_Quiet, directory=str(out))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    assert CHROMIUM is not None
    profile = tmp_path / DOCS_SITE  # its cache holds the site's pages: the secret grep knows
    proc = subprocess.Popen(
        command(CHROMIUM, profile, "--remote-debugging-port=0", "about:blank"),
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        active = profile / "DevToolsActivePort"
        end = time.monotonic() + 60
        while not (active.is_file() and len(active.read_text().split()) >= 2):
            assert time.monotonic() < end, "Chromium never opened its DevTools port"
            time.sleep(0.1)
        port = active.read_text().split()[0]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json", timeout=30) as r:
            page = next(t for t in json.load(r) if t["type"] == "page")
        with connect(page["webSocketDebuggerUrl"], max_size=None) as ws:
            b = Browser(ws)
            b.call("Network.enable")
            b.call("Page.enable")
            yield b
    finally:
        proc.kill()
        proc.wait(timeout=30)


def _open(browser: Browser, url: str) -> None:
    browser.call("Page.navigate", url=url)
    browser.wait_for("document.readyState === 'complete'")


def test_a_rule_page_renders(site: str, browser: Browser) -> None:
    _open(browser, f"{site}/rules/T001-head-missing-id.html")
    assert browser.js("document.querySelector('h1').textContent") == "T001 head-missing-id"
    headings = browser.js("[...document.querySelectorAll('h2')].map(h => h.textContent)")
    for section in ("What it does", "Why it matters", "Which clients break", "How to fix it"):
        assert section in headings
    assert browser.js("document.querySelectorAll('pre code').length") >= 1


def test_the_search_finds_a_rule_by_its_code(site: str, browser: Browser) -> None:
    _open(browser, f"{site}/index.html?q=A003")
    hrefs = browser.wait_for(
        "[...document.querySelectorAll('.md-search-result__item a')]"
        ".map(a => a.getAttribute('href'))"
    )
    assert "/rules/A003-block-not-started.html" in hrefs[0]


def test_the_report_guide_shows_its_screenshot(site: str, browser: Browser) -> None:
    """The screenshot made at build time is on the page, loaded, at its size."""
    _open(browser, f"{site}/guide/html-report.html")
    size = browser.wait_for(
        "[...document.querySelectorAll('article img')].filter(i => i.complete)"
        ".map(i => [i.getAttribute('src'), i.naturalWidth, i.naturalHeight])"
    )
    assert size == [["html-report.png", 1200, 1000]]


def test_no_page_fetches_anything_from_the_network(site: str, browser: Browser) -> None:
    for page in ("index.html", "rules/index.html", "grammars/chat.html", "api.html"):
        _open(browser, f"{site}/{page}")
    _open(browser, f"{site}/index.html?q=T001")
    browser.wait_for("document.querySelectorAll('.md-search-result__item').length")
    remote = [u for u in browser.requested if u.startswith(("http:", "https:", "ws:", "wss:"))]
    assert remote, "the pages made no requests at all: the test sees nothing"
    assert all(u.startswith(site) for u in remote), [u for u in remote if not u.startswith(site)]
