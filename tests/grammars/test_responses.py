"""The responses grammar: its case folders (exact codes, every split, every location), its
schemas, its rules' completeness, the command line, and every real Responses stream of
../shared/real-streams.
"""

from __future__ import annotations

import csv
import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest

from sseconform import FileResult, Settings, check_bytes, check_chunks
from sseconform.rules.catalog import GRAMMAR_INVARIANTS, RULES, Severity, doc
from sseconform.rules.responses.rules import INVARIANTS
from sseconform.rules.schema import load_schema, schema_dir, validator
from sseconform.sse import decode_all
from tests import forked
from tests.conftest import CASES, REAL_STREAMS, ROOT, case_settings
from tests.test_cases import decoded_events, starts_a_line, where_of

HERE = CASES / "responses"
CASE_DIRS = sorted(p for p in HERE.glob("*/*") if (p / "stream.sse").is_file())
IDS = [f"{p.parent.name}/{p.name}" for p in CASE_DIRS]
S_CODES = sorted(c for c, r in RULES.items() if r.grammar == "responses")
#: Findings about the end of the stream: located at the last event (none: the body's start).
AT_END = frozenset({"S040", "W018"})
MANIFEST = REAL_STREAMS / "MANIFEST.tsv"
SCHEMAS = sorted(
    p.name.removesuffix(".schema.json") for p in (schema_dir() / "responses").glob("*.json")
)


def _expected(case: Path) -> set[str]:
    return {ln.strip() for ln in (case / "expected.txt").read_text().splitlines() if ln.strip()}


def _check(body: bytes, settings: Settings | None = None) -> FileResult:
    return check_bytes(body, settings, grammar="responses")


# -- the cases ---------------------------------------------------------------------------------


def test_there_are_cases() -> None:
    assert len(CASE_DIRS) >= 50


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_case_codes(case: Path) -> None:
    result = _check((case / "stream.sse").read_bytes(), case_settings(case))
    assert result.grammar == "responses"
    assert result.codes == _expected(case), [str(d) for d in result.findings]


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_case_split_invariance(case: Path) -> None:
    """One byte at a time, random cuts (through multi-byte characters too): the same
    diagnostics, in the same places."""
    body = (case / "stream.sse").read_bytes()
    settings = case_settings(case)
    whole = _check(body, settings).findings
    one = check_chunks((body[i : i + 1] for i in range(len(body))), settings, grammar="responses")
    assert one.findings == whole
    rng = random.Random(case.name)
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(body)), k=min(8, len(body) - 1)))
        pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
        assert check_chunks(pieces, settings, grammar="responses").findings == whole


def test_a_cut_inside_a_multibyte_character_changes_nothing() -> None:
    body = (HERE / "pass" / "text-unicode" / "stream.sse").read_bytes()
    whole = _check(body).findings
    for ch in ("é", "☃", "😀"):
        at = body.index(ch.encode()) + 1
        assert check_chunks([body[:at], body[at:]], grammar="responses").findings == whole


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_crlf_framing_changes_nothing_but_the_wire_finding(case: Path) -> None:
    """CR LF (and bare CR) line ends: the grammar findings stay; W003 (W004) is added."""
    body = (case / "stream.sse").read_bytes()
    settings = case_settings(case)
    want = _expected(case)
    for eol, wire in ((b"\r\n", "W003"), (b"\r", "W004")):
        got = _check(body.replace(b"\n", eol), settings).codes
        assert got == want | {wire}, (eol, got)


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_auto_detection_picks_responses(case: Path) -> None:
    body = (case / "stream.sse").read_bytes()
    result = check_bytes(body, case_settings(case), grammar="auto")
    assert result.grammar == "responses"
    assert result.codes == _expected(case)


def _assert_located(body: bytes, settings: Settings, diagnostics: list[Any], name: str) -> None:
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


def test_every_responses_rule_has_a_failing_case() -> None:
    demonstrated = {p.name.split("-")[0] for p in HERE.glob("fail/*")}
    assert set(S_CODES) - demonstrated == set()


def test_fail_cases_report_their_own_code() -> None:
    for case in HERE.glob("fail/*"):
        assert case.name.split("-")[0] in _expected(case), case.name


def test_pass_cases_have_nothing_beyond_info() -> None:
    for case in HERE.glob("pass/*"):
        if not (case / "stream.sse").is_file():
            continue  # a WebSocket session's case: tests/websocket/test_session_cases.py
        result = _check((case / "stream.sse").read_bytes(), case_settings(case))
        assert all(d.severity is Severity.INFO for d in result.findings), case.name
        assert not result.suppressed, case.name


def test_the_issues_bug_shapes_have_cases() -> None:
    """Broken sequence numbers (gap, repeat), a delta for an output_index never added, a
    .done text that is not its deltas, no terminal event."""
    names = {p.name for p in HERE.glob("fail/*")}
    for prefix in ("S010-", "S011-", "S020-output-index-never-added", "S030-", "S040-"):
        assert any(n.startswith(prefix) for n in names), prefix


# -- the rules ---------------------------------------------------------------------------------


def test_the_rules_name_the_grammars_invariants() -> None:
    assert GRAMMAR_INVARIANTS["responses"] == INVARIANTS
    used = {RULES[c].invariant for c in S_CODES}
    assert used == set(INVARIANTS)
    for name in (
        "created-first",
        "sequence-numbers",
        "refs-resolve",
        "done-matches-deltas",
        "one-terminal-event",
        "error-event",
        "no-foreign-shapes",
    ):
        assert name in INVARIANTS


def test_every_rule_is_documented() -> None:
    for code in S_CODES:
        d = doc(code)
        assert d.what and d.why and d.clients and d.example and d.fix, code
        assert RULES[code].applies_to("responses") and not RULES[code].applies_to("chat")


def test_rule_modules_are_one_per_rule_and_imported_in_order() -> None:
    pkg = ROOT / "sseconform" / "rules" / "responses" / "rules"
    modules = sorted(p.stem for p in pkg.glob("s[0-9][0-9][0-9]_*.py"))
    assert [m.split("_")[0].upper() for m in modules] == S_CODES
    for m in modules:
        code = m.split("_")[0].upper()
        assert m == f"{code.lower()}_{RULES[code].name.replace('-', '_')}"
    init = (pkg / "__init__.py").read_text()
    listed = [ln.strip().rstrip(",") for ln in init.splitlines() if ln.startswith("    s0")]
    assert listed == modules


def test_selection_by_invariant_and_code() -> None:
    body = (HERE / "fail" / "S010-delta-dropped" / "stream.sse").read_bytes()
    assert _check(body, Settings(select=["sequence-numbers"])).codes == {"S010"}
    assert _check(body, Settings(ignore=["S010"])).codes == {"S030"}


# -- schemas -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SCHEMAS)
def test_schema_is_valid_draft_2020_12(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(load_schema(f"responses/{name}"))


def test_every_event_type_of_the_brief_has_a_schema() -> None:
    for name in (
        "response.created",
        "response.in_progress",
        "response.completed",
        "response.incomplete",
        "response.failed",
        "response.queued",
        "response.output_item.added",
        "response.output_item.done",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.delta",
        "response.output_text.done",
        "response.output_text.annotation.added",
        "response.refusal.delta",
        "response.refusal.done",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_part.done",
        "response.reasoning_summary_text.delta",
        "response.reasoning_summary_text.done",
        "response.reasoning_text.delta",
        "response.reasoning_text.done",
        "response.file_search_call.searching",
        "response.web_search_call.completed",
        "response.code_interpreter_call_code.delta",
        "response.image_generation_call.partial_image",
        "response.mcp_call_arguments.done",
        "response.custom_tool_call_input.delta",
        "response.custom_tool_call_input.done",
        "error",
    ):
        assert name in SCHEMAS, name


def _frames(paths: list[Path]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in paths:
        for ev in decode_all(path.read_bytes())[0]:
            try:
                obj = orjson.loads(ev.data)
            except orjson.JSONDecodeError:
                continue
            if isinstance(obj, dict) and obj.get("type") in SCHEMAS:
                out.append((obj["type"], obj))
    return out


def _agree(frames: list[tuple[str, dict[str, Any]]]) -> None:
    """jsonschema-rs (what the checker uses) and jsonschema (the reference) agree."""
    ref = {n: jsonschema.Draft202012Validator(load_schema(f"responses/{n}")) for n in SCHEMAS}
    for name, obj in frames:
        fast = validator(f"responses/{name}").is_valid(obj)
        assert fast == ref[name].is_valid(obj), (name, obj)


def test_validators_agree_on_case_frames() -> None:
    frames = _frames([p / "stream.sse" for p in CASE_DIRS])
    assert len(frames) > 500
    _agree(frames)


# -- the command line --------------------------------------------------------------------------


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return forked.completed(
        [sys.executable, "-m", "sseconform", "check", *args], text=True, cwd=ROOT, timeout=120
    )


def test_cli_check_grammar_responses_exit_codes() -> None:
    good = HERE / "pass" / "text" / "stream.sse"
    bad = HERE / "fail" / "S030-text-done-differs" / "stream.sse"
    warn = HERE / "fail" / "S071-event-line-missing" / "stream.sse"
    assert _cli("--grammar", "responses", str(good)).returncode == 0
    failed = _cli("--grammar", "responses", str(bad))
    assert failed.returncode == 1
    assert "S030" in failed.stdout
    assert _cli("--grammar", "responses", str(warn)).returncode == 0
    assert _cli("--grammar", "responses", "--strict", str(warn)).returncode == 1


def test_cli_json_names_the_grammar() -> None:
    bad = HERE / "fail" / "S040-no-terminal-event" / "stream.sse"
    out = _cli("--grammar", "responses", "--format", "json", str(bad))
    assert out.returncode == 1
    doc_ = json.loads(out.stdout)
    assert '"grammar": "responses"' in out.stdout
    files = doc_["files"] if isinstance(doc_, dict) and "files" in doc_ else doc_
    assert "S040" in json.dumps(files)
    auto = _cli("--grammar", "auto", "--format", "json", str(bad))
    assert '"grammar": "responses"' in auto.stdout


# -- the real streams --------------------------------------------------------------------------


def _rows() -> list[dict[str, str]]:
    if not MANIFEST.is_file():
        return []
    with open(MANIFEST, newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["api"] == "responses"]
    return [r for r in rows if not r["path"].startswith("_edited/")]


LIVE = _rows()
needs_corpus = pytest.mark.skipif(not LIVE, reason="../shared/real-streams is not present")

#: Captures that are not what the provider sent, with the findings that says, and why.
#: - openai/phase.1: the source project trimmed the capture by hand (deltas and an item
#:   removed: sequence numbers jump 5 -> 41 -> 49 -> 126, output_index 1 is gone, each
#:   output_text.done is longer than the two deltas left before it).
#: - github-copilot/id-rotation.1: the source replaced every id with a fresh counter
#:   (capture-id-N), so the response id, item ids and item_ids never repeat; whether
#:   Copilot's own ids rotate cannot be told from the file. openai-python 3.54.0 raises
#:   "Lifecycle response identity changed." on exactly this shape.
KNOWN: dict[str, set[str]] = {
    "openai/phase.1__vercel-ai.sse": {"S010", "S023", "S030"},
    "github-copilot/id-rotation.1__vercel-ai.sse": {"S003", "S021", "S035", "S043", "S074"},
}


@needs_corpus
def test_the_corpus_has_responses_streams() -> None:
    assert len(LIVE) >= 80


@needs_corpus
@pytest.mark.parametrize("row", LIVE, ids=lambda r: r["path"])
def test_real_responses_stream_passes(row: dict[str, str]) -> None:
    """No error, no warning: every live capture (OpenAI, Azure OpenAI, xAI, LM Studio) sends
    `event:` lines, numbers its events from 0, and ends with its terminal event. Rendered
    files keep the `event:` lines of their source, so S071 would say something about the
    provider here; it does not occur."""
    body = (REAL_STREAMS / row["path"]).read_bytes()
    result = _check(body)
    want = KNOWN.get(row["path"], set())
    assert result.codes == want, [str(d) for d in result.findings]
    _assert_located(body, Settings(), result.findings, row["path"])


@needs_corpus
def test_real_streams_are_detected_as_responses() -> None:
    for row in LIVE:
        body = (REAL_STREAMS / row["path"]).read_bytes()
        assert check_bytes(body, grammar="auto").grammar == "responses", row["path"]


@needs_corpus
def test_validators_agree_on_real_frames() -> None:
    _agree(_frames([REAL_STREAMS / r["path"] for r in LIVE]))


@needs_corpus
def test_real_streams_split_anywhere_give_the_same_findings() -> None:
    rng = random.Random(11)
    for row in LIVE[::7]:
        body = (REAL_STREAMS / row["path"]).read_bytes()
        whole = _check(body).findings
        cuts = sorted(rng.sample(range(1, len(body)), k=min(40, len(body) - 1)))
        pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
        assert check_chunks(pieces, grammar="responses").findings == whole, row["path"]


# -- the checker's state -----------------------------------------------------------------------


def _events(*objs: dict[str, Any]) -> bytes:
    out = []
    for n, obj in enumerate(objs):
        obj = {**obj, "sequence_number": n}
        out.append(b"event: " + obj["type"].encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n")
    return b"".join(out)


def test_an_unknown_type_is_noted_once_and_its_references_checked_each_time() -> None:
    created = {"type": "response.created", "response": {"id": "resp_case900"}}
    body = _events(
        created,
        {"type": "response.thinking.delta", "output_index": 0, "delta": "a"},
        {"type": "response.thinking.delta", "output_index": 5, "delta": "b"},
    )
    found = [d.code for d in _check(body).findings]
    assert found.count("S065") == 1
    assert found.count("S020") == 2


def test_a_done_item_is_kept_as_a_digest() -> None:
    """What is done is let go: the parts and the arguments' running hash; the terminal
    output is compared with one 16-byte digest per item."""
    from sseconform.rules.responses.checker import ResponsesChecker

    body = (HERE / "pass" / "parallel-function-calls" / "stream.sse").read_bytes()
    checker = ResponsesChecker()
    checker.feed(body)
    assert checker.finish() == []
    for item in checker._items.values():
        assert item.parts == [] and item.summary == [] and item.body is None
        assert isinstance(item.final, bytes) and len(item.final) == 16
