"""The documentation site: a page per rule and grammar generated from the rule modules, and
(where the docs extra is installed, as CI installs it) the whole site built strictly, with
nothing in it fetched from the network."""

from __future__ import annotations

import importlib.util
import re
import struct
from pathlib import Path

import pytest

from sseconform.rules.catalog import GRAMMARS, RULES
from sseconform.rules.pages import page_path, rule_page, site_pages
from tests.conftest import ROOT
from tests.docs_site import built_site
from tools.chromium import find

CHROMIUM = find()


def test_every_rule_and_grammar_has_a_page() -> None:
    pages = site_pages()
    for code, rule in RULES.items():
        path = page_path(rule)
        assert path.startswith(f"rules/{code}-"), path
        assert path in pages
    for grammar in GRAMMARS:
        assert f"grammars/{grammar}.md" in pages
    assert all(f"[{code}](" in pages["rules/index.md"] for code in RULES)


@pytest.mark.parametrize("code", sorted(RULES))
def test_a_rule_page_has_every_section(code: str) -> None:
    page = rule_page(code)
    assert page.startswith(f"# {code} {RULES[code].name}\n")
    for section in ("## What it does", "## Why it matters", "## Which clients break"):
        assert section in page
    assert "## How to fix it" in page
    assert page.count("```") % 2 == 0  # every fence closed


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None, reason="the docs extra is not installed"
)
def test_the_site_builds_strictly_and_fetches_nothing(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    site = built_site(tmp_path_factory)  # strictly: a warning fails the build
    for rule in RULES.values():
        assert (site / page_path(rule).replace(".md", ".html")).is_file(), rule.code
    fetched = re.compile(
        r'<(?:script|img|iframe|source)[^>]*\bsrc="https?://|<link[^>]*href="https?://'
    )
    for page in site.rglob("*.html"):
        assert not fetched.search(page.read_text(encoding="utf-8")), page
    assert (site / "search" / "search_index.json").is_file()
    _the_report_is_shown(site)


def _the_report_is_shown(site: Path) -> None:
    """The HTML report's guide shows a screenshot made at build time, from a real report,
    when Chromium is there (CI requires it); else it says it has none."""
    page = (site / "guide" / "html-report.html").read_text(encoding="utf-8")
    shot = site / "guide" / "html-report.png"
    if not CHROMIUM:
        assert "built without Chromium" in page
        assert not shot.exists()
        return
    assert '<img alt="sseconform check recordings/chat recordings/gateway-bugs' in page
    assert 'src="html-report.png"' in page
    head = shot.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", head[16:24]) == (1200, 1000)
    assert shot.stat().st_size > 20_000  # something was drawn, not a blank page


def test_every_gate_finding_has_a_page() -> None:
    """The gate's own codes (timing, expect, transport, upstream, diff) each get a page, as
    ``sseconform rule CODE`` prints them, and the index links every one."""
    from sseconform.gate.pages import gate_page_path, gate_pages
    from sseconform.gate.rules import ordered

    pages = gate_pages()
    every = [r.code for r in ordered()]
    assert {"transport:silent", "timing:first-token", "history:lost-result"} <= set(every)
    for code in every:
        path = gate_page_path(code)
        assert pages[path].startswith(f"# {code}\n"), code
        assert f"]({path.removeprefix('gate/')})" in pages["gate/index.md"], code


def _nav_pages(nav: object) -> set[str]:
    """Every page mkdocs.yml's nav names, at any depth."""
    if isinstance(nav, str):
        return {nav}
    if isinstance(nav, list):
        return {p for item in nav for p in _nav_pages(item)}
    if isinstance(nav, dict):
        return {p for value in nav.values() for p in _nav_pages(value)}
    return set()


@pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None, reason="the docs extra is not installed"
)
def test_every_page_is_in_the_nav_or_left_out_on_purpose() -> None:
    """No page is left out of the navigation by accident (mkdocs would list it on every
    build): each is in the nav, or under mkdocs.yml's ``not_in_nav`` (the pages of the rules
    and the gate's findings, reached from their indexes); and every page the nav names
    exists."""
    import pathspec
    import yaml

    from sseconform.cli.main import app
    from sseconform.gate.pages import gate_pages

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    nav = _nav_pages(config["nav"])
    left_out = pathspec.GitIgnoreSpec.from_lines(str(config["not_in_nav"]).splitlines())
    docs = ROOT / "docs"
    commands = {
        f"commands/{c.name or (c.callback.__name__ if c.callback else '')}.md"
        for c in app.registered_commands
        if not c.hidden
    }
    pages = {
        *(p.relative_to(docs).as_posix() for p in docs.rglob("*.md")),
        *site_pages(),
        *gate_pages(),
        *commands,
    }
    astray = sorted(p for p in pages if p not in nav and not left_out.match_file(p))
    assert astray == [], "in no nav and not listed in not_in_nav"
    assert sorted(nav - pages) == []
    assert {"grammars/gemini.md", "commands/rule.md"} <= nav
