"""The gemini grammar: its case folders (exact codes, every split, every location), its
schema, its rules' completeness, detection, and every live Gemini capture of
../shared/real-streams (provider truth: none gets an error).
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path
from typing import Any

import pytest

from sseconform import FileResult, Settings, check_bytes, check_chunks
from sseconform.api import check_file
from sseconform.rules.catalog import GRAMMAR_INVARIANTS, RULES, Severity, doc
from sseconform.rules.gemini.rules import INVARIANTS
from sseconform.rules.grammars import checker_for, detect
from sseconform.sse.jsonarray import ArrayReader
from tests.conftest import CASES, REAL_STREAMS, case_settings
from tests.test_cases import decoded_events, starts_a_line, where_of

HERE = CASES / "gemini"
CASE_DIRS = sorted(p for p in HERE.glob("*/*") if (p / "stream.sse").is_file())
IDS = [f"{p.parent.name}/{p.name}" for p in CASE_DIRS]
V_CODES = sorted(c for c, r in RULES.items() if r.grammar == "gemini")
#: Findings about the end of the stream: located at the last event.
AT_END = frozenset({"V006"})
MANIFEST = REAL_STREAMS / "MANIFEST.tsv"
#: A capture whose last chunk has no blank line after it (W011): the decoder drops that
#: chunk, and with it the finishReason (V006). Google's own bodies end with one.
UNTERMINATED = frozenset(
    {"gemini/firebase-googleai-streaming-success-no-content-parts__firebase-vertexai-test-data.sse"}
)


def _expected(case: Path) -> set[str]:
    return {ln.strip() for ln in (case / "expected.txt").read_text().splitlines() if ln.strip()}


def _check(body: bytes, settings: Settings | None = None) -> FileResult:
    return check_bytes(body, settings, grammar="gemini")


def _live_captures() -> list[dict[str, str]]:
    if not MANIFEST.is_file():
        return []
    with MANIFEST.open(newline="") as fp:
        rows = list(csv.DictReader(fp, delimiter="\t"))
    return [r for r in rows if r["api"] == "gemini" and not r["path"].startswith("_edited/")]


LIVE = _live_captures()


# -- the cases ---------------------------------------------------------------------------------


def test_there_are_cases_and_every_rule_has_one() -> None:
    assert len(CASE_DIRS) >= 28
    failing = {p.name.split("-")[0] for p in HERE.glob("fail/*")}
    assert failing == set(V_CODES)


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_case_codes(case: Path) -> None:
    result = _check((case / "stream.sse").read_bytes(), case_settings(case))
    assert result.grammar == "gemini"
    assert result.codes == _expected(case), [str(d) for d in result.findings]


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_case_split_invariance(case: Path) -> None:
    """One byte at a time (between CR and LF too), random cuts (through multi-byte
    characters): the same findings, in the same places."""
    body = (case / "stream.sse").read_bytes()
    settings = case_settings(case)
    whole = _check(body, settings).findings
    one = check_chunks((body[i : i + 1] for i in range(len(body))), settings, grammar="gemini")
    assert one.findings == whole
    rng = random.Random(case.name)
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(body)), k=min(8, len(body) - 1)))
        pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
        assert check_chunks(pieces, settings, grammar="gemini").findings == whole


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_lf_or_crlf_framing_is_the_same_stream(case: Path) -> None:
    """Google frames with CRLF, gateways often with LF: neither is a finding here."""
    body = (case / "stream.sse").read_bytes()
    settings = case_settings(case)
    lf = body.replace(b"\r\n", b"\n")
    assert _check(lf, settings).codes == _check(lf.replace(b"\n", b"\r\n"), settings).codes
    assert _check(lf, settings).codes == _expected(case)


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_auto_detection_picks_gemini(case: Path) -> None:
    body = (case / "stream.sse").read_bytes()
    assert detect(body[:4096]) == "gemini"
    result = check_bytes(body, case_settings(case), grammar="auto")
    assert result.grammar == "gemini" and result.codes == _expected(case)


def _array_located(body: bytes, diagnostics: list[Any], name: str, single: bool = False) -> None:
    """A JSON-array body (or one object, ``single``): a chunk's finding at its element's
    first byte and line, V020 and V022 at the byte they are about (its line counted from
    the body)."""
    starts: dict[int, tuple[int, int]] = {}

    def element(_text: str, offset: int, line: int) -> None:
        starts[len(starts) + 1] = (offset, line)

    reader = ArrayReader(element, lambda *_: None, 1 << 20, single=single)
    reader.feed(body)
    for d in diagnostics:
        if d.frame is not None:
            assert (d.offset, d.line) == starts[d.frame], (name, str(d))
        else:
            assert d.line == body.count(b"\n", 0, d.offset) + 1, (name, str(d))


def _assert_located(body: bytes, settings: Settings, diagnostics: list[Any], name: str) -> None:
    if settings.whole or body.lstrip()[:1] == b"[":
        _array_located(body, diagnostics, name, settings.whole)
        return
    events = decoded_events(body, settings)
    starts = {ev.frame: (ev.frame, ev.line, ev.offset) for ev in events}
    last = starts[events[-1].frame] if events else (None, 1, 0)
    for d in diagnostics:
        if d.code in AT_END:
            assert where_of(d) == last, (name, str(d))
        elif d.frame in starts:
            assert where_of(d) == starts[d.frame], (name, str(d))
        else:
            assert d.code.startswith("W"), (name, str(d))
            assert starts_a_line(body, d.offset), (name, str(d))


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_every_location_is_where_an_event_starts(case: Path) -> None:
    body = (case / "stream.sse").read_bytes()
    settings = case_settings(case)
    _assert_located(body, settings, _check(body, settings).findings, case.name)


def test_a_finding_names_its_place_in_the_chunk() -> None:
    body = (HERE / "fail" / "V002-call-args-string" / "stream.sse").read_bytes()
    (d,) = _check(body).findings
    assert d.pointer == "/candidates/0/content/parts/0/functionCall/args"
    assert "not an object" in d.message


# -- the rules ---------------------------------------------------------------------------------


def test_the_grammar_declares_its_invariants() -> None:
    assert GRAMMAR_INVARIANTS["gemini"] == INVARIANTS
    assert {RULES[c].invariant for c in V_CODES} == set(INVARIANTS)


@pytest.mark.parametrize("code", V_CODES)
def test_every_rule_is_documented_with_its_example(code: str) -> None:
    d = doc(code)
    assert d.what and d.why and d.clients and d.fix
    assert d.example_from.startswith("tests/cases/gemini/fail/" + code), d.example_from


def test_severities_follow_what_the_clients_do() -> None:
    """Errors are what a measured client (google-genai, the AI SDK, Gemini CLI, Qwen Code,
    OpenCode) raises on or reads other content from than the stream meant, in the client
    matrix (tests/interop/matrix/gemini.json, held by test_matrix and the heavy tests); what
    all read on without harm is a warning. V003 became an error with Qwen Code (it keeps one
    call per id)."""
    warnings = {c for c in V_CODES if RULES[c].severity is Severity.WARNING}
    assert warnings == {"V005", "V008", "V009", "V010", "V012", "V013", "V020"}


# -- provider truth ----------------------------------------------------------------------------

needs_corpus = pytest.mark.skipif(not LIVE, reason="../shared/real-streams is not present")


@needs_corpus
def test_there_are_live_gemini_captures() -> None:
    assert len(LIVE) >= 60


@needs_corpus
@pytest.mark.parametrize("row", LIVE, ids=lambda r: r["path"])
def test_a_live_capture_has_no_error(row: dict[str, str]) -> None:
    result = check_file(REAL_STREAMS / row["path"], grammar="auto")
    assert result.grammar == "gemini"
    errors = {d.code for d in result.findings if d.severity is Severity.ERROR}
    if row["path"] in UNTERMINATED:
        assert errors == {"W011", "V006"}
    else:
        assert not errors, [str(d) for d in result.findings]
        assert not result.findings, [str(d) for d in result.findings]


@needs_corpus
def test_vertex_streamed_arguments_are_not_a_split_call() -> None:
    path = REAL_STREAMS / "gemini" / "stream-no-args-tool-call__vercel-ai.sse"
    body = path.read_bytes()
    assert b"partialArgs" in body and b"willContinue" in body
    assert check_bytes(body, grammar="gemini").codes == set()


def test_a_stream_with_no_chunk_has_no_finish() -> None:
    assert _check(b"").codes == {"V006"}


def test_a_chat_stream_is_still_chat() -> None:
    chunk = b'data: {"id":"c","object":"chat.completion.chunk","choices":[]}\n\n'
    assert detect(chunk) == "chat"
    assert (
        detect(b'data: {"error":{"code":429,"message":"x","status":"RESOURCE_EXHAUSTED"}}\n\n')
        == "gemini"
    )


# -- the byte lane: text chunks alike but for their text and counts ------------------------------


def _text_chunks(n: int, eol: str = "\r\n", odd: dict[int, str] | None = None) -> bytes:
    """``n`` text chunks with growing counts, the last with its finish; ``odd`` replaces the
    text of some (by index) with a JSON string literal of its own."""
    out = []
    for i in range(n):
        text = (odd or {}).get(i, json.dumps(f"w{i} "))
        end = ',"finishReason":"STOP"' if i == n - 1 else ""
        out.append(
            f'data: {{"candidates":[{{"content":{{"parts":[{{"text":{text}}}],"role":"model"}}'
            f'{end},"index":0}}],"usageMetadata":{{"promptTokenCount":9,"candidatesTokenCount":'
            f'{i + 1},"totalTokenCount":{i + 10}}},"modelVersion":"gemini-test","responseId":"r"}}'
            f"{eol}{eol}"
        )
    return "".join(out).encode()


@pytest.mark.parametrize("eol", ["\r\n", "\n"])
def test_a_long_text_stream_is_read_on_the_bytes(eol: str) -> None:
    body = _text_chunks(2000, eol)
    checker = checker_for("gemini", Settings())
    checker.feed_all(body[i : i + 65536] for i in range(0, len(body), 65536))
    assert checker.finish() == []
    assert checker.lane_events > 0.9 * checker.frames
    assert check_bytes(body, Settings(memo=False), grammar="gemini").codes == set()


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda b: b.replace(b'"totalTokenCount":1500', b'"totalTokenCount":9999'), "V009"),
        (lambda b: b.replace(b'"candidatesTokenCount":1200', b'"candidatesTokenCount":3'), "V010"),
        (lambda b: b.replace(b'"text":"w700 "', b'"text":"<think>hm</think>"'), "V007"),
    ],
)
def test_a_fault_in_the_middle_of_a_run_is_found_where_it_is(change: Any, code: str) -> None:
    """The lane hands a run with a fault back to the full path: the finding is the one the
    full path makes, in the same place."""
    body = change(_text_chunks(2000))
    fast = _check(body)
    slow = check_bytes(body, Settings(memo=False), grammar="gemini")
    assert code in fast.codes
    assert fast.findings == slow.findings
    one = check_chunks((body[i : i + 7] for i in range(0, len(body), 7)), grammar="gemini")
    assert one.findings == fast.findings


def test_an_empty_function_call_part_is_no_split_call() -> None:
    """Vertex AI ends a streamed call with an empty `functionCall`; a second one, or one
    after a whole call, carries no arguments: nothing was split."""
    whole = '{"functionCall":{"name":"f","args":{"a":1}}}'
    body = "".join(
        f'data: {{"candidates":[{{"content":{{"parts":[{p}],"role":"model"}}{e},"index":0}}]}}\n\n'
        for p, e in (
            (whole, ""),
            ('{"functionCall":{}}', ""),
            ('{"functionCall":{}}', ',"finishReason":"STOP"'),
        )
    ).encode()
    assert _check(body).codes == set()
    split = body.replace(b'{"functionCall":{}}', b'{"functionCall":{"args":{"b":2}}}', 1)
    assert _check(split).codes == {"V001"}


@pytest.mark.parametrize("tag", ["<think>", "\\u003cthink>", "\\u003Cthinking>"])
def test_a_tag_in_a_long_run_of_text_chunks_is_found_however_it_is_written(tag: str) -> None:
    """The byte lane takes a run of text chunks whole unless a text could open with a tag:
    one written raw or as its JSON escape is found as the full path finds it."""
    chunk = (
        'data: {"candidates":[{"content":{"parts":[{"text":"%s"}],"role":"model"},'
        '"index":0}],"modelVersion":"gemini-test"}\r\n\r\n'
    )
    texts = ["Hello", " world"] * 20 + [tag + "x"] + ["more"] * 20
    last = (
        'data: {"candidates":[{"content":{"parts":[{"text":"."}],"role":"model"},'
        '"finishReason":"STOP","index":0}],"modelVersion":"gemini-test"}\r\n\r\n'
    )
    body = ("".join(chunk % t for t in texts) + last).encode()
    fast = check_bytes(body, grammar="gemini")
    slow = check_bytes(body, Settings(memo=False), grammar="gemini")
    assert fast.codes == slow.codes == {"V007"}
    assert fast.findings == slow.findings
