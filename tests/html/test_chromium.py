"""The gate's HTML page in a real browser: Debian's headless Chromium renders the report of a
run against the project's test gateway (losing a token, closing silently on upstream
failures), and the DOM it gives back is checked against the run's own results: the matrix
has each scenario's verdict, the first difference is marked where the two texts part, the
timeline has one mark per event on each side and one per fault. With script off the
summary and the findings are all there. Screenshots at desktop and phone widths are taken
(and kept in the test's folder for a person to look at), never the only assertion.

Skipped when Chromium is not installed, unless SSECONFORM_REQUIRE_CHROMIUM=1 (``.ci/run``
installs it and sets that).
"""

from __future__ import annotations

import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from sseconform.demo.gateway import Gateway
from sseconform.gate.content import content_of
from sseconform.gate.result import ScenarioResult, SuiteResult
from sseconform.gate.runner import run_suite
from sseconform.gate.suite import builtin_suite
from sseconform.gate.upstream import translated
from sseconform.html.gate import render
from sseconform.recording.format import RecordingReader
from sseconform.replay.plan import load
from sseconform.sse import SSEDecoder
from tests.gate.test_gate import free_port
from tests.html.dom import Node, parse
from tools.chromium import command, find

CHROMIUM = find()
if CHROMIUM is None:
    pytest.skip("Chromium is not installed (apt-get install chromium)", allow_module_level=True)


def chromium(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    profile = tmp / f"profile-{len(list(tmp.glob('profile-*')))}"
    return subprocess.run(
        command(CHROMIUM, profile, *args),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, SuiteResult]]:
    """The built-in suite, at recorded speed (a real timeline), eight scenarios at a time."""
    tmp = tmp_path_factory.mktemp("html")
    port = free_port()
    suite = builtin_suite("all")
    with Gateway(f"http://127.0.0.1:{port}", {"lose-token", "silent-close"}).running() as gw:
        result = run_suite(suite, gw.url, str(tmp / "out"), upstream_port=port,
                           concurrency=8, evidence=True)  # fmt: skip
    page = tmp / "report.html"
    page.write_text(render([result]), encoding="utf-8")
    yield page, result


def _dom(page: Path, *extra: str) -> Node:
    out = chromium(page.parent, *extra, "--dump-dom", page.as_uri())
    assert "<html" in out.stdout, out.stderr[-2000:]
    return parse(out.stdout)


def _section(dom: Node, name: str) -> Node:
    found = [s for s in dom.find_all("section", "scenario") if s.find("h2").text.endswith(name)]
    assert len(found) == 1, name
    return found[0]


def _scenario(result: SuiteResult, name: str) -> ScenarioResult:
    return next(s for s in result.scenarios if s.name == name)


def _upstream_body(name: str) -> bytes:
    """What the replay upstream served for a scenario (a translated one: the chunks)."""
    sc = next(sc for sc in builtin_suite("all").scenarios if sc.name == name)
    rec = load(sc.recording)
    if sc.translate:
        rec = translated(rec, sc.upstream or rec.dialect or "openai", sc.usage)
    return rec.body


def _events(body: bytes) -> int:
    dec = SSEDecoder()
    return len(dec.feed(body)) + len(dec.finish())


def _recorded(path: str) -> bytes:
    with open(path, "rb") as fp:
        return b"".join(b for _, b in RecordingReader(fp, path).reads())


def test_the_matrix_shows_every_verdict(run: tuple[Path, SuiteResult]) -> None:
    page, result = run
    dom = _dom(page)
    cells = {n.attrs["data-scenario"]: n.attrs["data-verdict"] for n in dom.find_all("td", "v")}
    assert cells == {s.name: s.verdict for s in result.scenarios}
    assert {"pass", "fail"} <= set(cells.values())
    sections = {s.attrs["id"]: s.attrs["data-verdict"] for s in dom.find_all("section", "scenario")}
    assert len(sections) == len(result.scenarios)
    for link in dom.find("section", id="matrix").find_all("a"):
        assert link.attrs["href"][1:] in sections


def test_the_first_difference_is_marked_where_the_texts_part(
    run: tuple[Path, SuiteResult],
) -> None:
    page, result = run
    dom = _dom(page)
    s = _scenario(result, "anthropic/text")
    gw_text = content_of([_recorded(s.recording)], "openai").model.choices[0].text
    up_text = content_of([_upstream_body(s.name)], "anthropic").model.choices[0].text
    n = next((i for i, (a, b) in enumerate(zip(up_text, gw_text, strict=False)) if a != b), 0)
    assert 0 < n < len(up_text)
    section = _section(dom, "anthropic/text")
    for side, text in (("up", up_text), ("gw", gw_text)):
        pre = section.find("div", side).find("div", "field", data_field="text").find("pre")
        mark = pre.find("mark", "first-diff")
        assert mark.attrs["data-char"] == str(n)
        assert pre.children[0] == text[:n]
        assert mark.text == text[n]
    assert "First difference: text (lost) at char" in section.find("p", "first").text


def test_the_timeline_has_a_mark_per_event(run: tuple[Path, SuiteResult]) -> None:
    page, result = run
    dom = _dom(page)
    for name in ("anthropic/text", "openai/tool-call", "responses/reasoning"):
        s = _scenario(result, name)
        svg = _section(dom, name).find("svg", "timeline")
        gw = [n for n in svg.find_all("line") if {"ev", "gw"} <= n.classes]
        up = [n for n in svg.find_all("line") if {"ev", "up"} <= n.classes]
        assert len(gw) == _events(_recorded(s.recording)), name
        assert len(up) == _events(_upstream_body(name)), name
        assert len(svg.find_all("path", "fault")) == 0
    svg = _section(dom, "anthropic/dropped-mid-stream").find("svg", "timeline")
    faults = svg.find_all("path", "fault")  # the pause after the first token, then the drop
    assert [f.text.split()[1] for f in faults] == ["stall", "drop"], [f.text for f in faults]


def test_without_script_the_summary_and_findings_are_all_there(
    run: tuple[Path, SuiteResult],
) -> None:
    page, result = run
    with_js = _dom(page)
    # --dump-dom itself needs script, so "no script" is the page with its one script left out
    text = page.read_text(encoding="utf-8")
    start, end = text.index("<script>"), text.index("</script>") + len("</script>")
    bare = page.parent / "report-no-script.html"
    bare.write_text(text[:start] + text[end:], encoding="utf-8")
    without = _dom(bare)
    assert not without.find_all("script")
    assert "hidden" not in with_js.find("div", id="filters").classes  # the script ran
    assert "hidden" in without.find("div", id="filters").classes
    failing = [s for s in result.scenarios if s.verdict == "fail"]
    listed = without.find("section", id="failures").find_all("li")
    assert len(listed) == len(failing)
    sections = without.find_all("section", "scenario")
    assert not any("hidden" in s.classes for s in sections)
    keys = {n.attrs["data-key"] for n in without.find_all("li", "finding")}
    assert keys == {f.key for s in result.scenarios for f in s.findings}


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", head[16:24])
    return w, h


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)], ids=["desktop", "phone"])
def test_screenshots(run: tuple[Path, SuiteResult], width: int, height: int) -> None:
    page, _ = run
    shot = page.parent / f"report-{width}.png"
    chromium(page.parent, f"--window-size={width},{height}", f"--screenshot={shot}", page.as_uri())
    assert _png_size(shot) == (width, height)
    assert shot.stat().st_size > 10_000  # something was drawn, not a blank page
    assert page.stat().st_size < 2_000_000
