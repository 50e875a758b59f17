"""The anthropic grammar: its case folders (exact codes, every split, every location), its
schemas, its rules' completeness, and every real Anthropic stream of ../shared/real-streams.
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

from sseconform import Settings, check_bytes, check_chunks
from sseconform.rules.anthropic.checker import AnthropicChecker, schema_name
from sseconform.rules.anthropic.invariants import INVARIANTS
from sseconform.rules.anthropic.state import EVENT_TYPES
from sseconform.rules.catalog import GRAMMAR_INVARIANTS, RULES, Severity, doc
from sseconform.rules.schema import load_schema, pointer_of, validator
from sseconform.sse import decode_all
from tests import forked
from tests.conftest import CASES, REAL_STREAMS, ROOT, case_settings
from tests.test_cases import decoded_events, starts_a_line, where_of

HERE = CASES / "anthropic"
CASE_DIRS = sorted(p for p in HERE.glob("*/*") if (p / "stream.sse").is_file())
IDS = [f"{p.parent.name}/{p.name}" for p in CASE_DIRS]
A_CODES = sorted(c for c, r in RULES.items() if r.grammar == "anthropic")
#: Findings about the end of the stream: located at the last event (none: the body's start).
AT_END = frozenset({"A020", "W018"})
MANIFEST = REAL_STREAMS / "MANIFEST.tsv"


def _expected(case: Path) -> set[str]:
    return {ln.strip() for ln in (case / "expected.txt").read_text().splitlines() if ln.strip()}


def _check(body: bytes, settings: Settings | None = None) -> Any:
    return check_bytes(body, settings, grammar="anthropic")


# -- the cases ---------------------------------------------------------------------------------


def test_there_are_cases() -> None:
    assert len(CASE_DIRS) >= 50


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_case_codes(case: Path) -> None:
    result = _check((case / "stream.sse").read_bytes(), case_settings(case))
    assert result.grammar == "anthropic"
    assert result.codes == _expected(case), [str(d) for d in result.findings]


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_case_split_invariance(case: Path) -> None:
    """One byte at a time (so inside every UTF-8 sequence), and random cuts."""
    body = (case / "stream.sse").read_bytes()
    settings = case_settings(case)
    whole = _check(body, settings).findings
    one_byte = check_chunks(
        (body[i : i + 1] for i in range(len(body))), settings, grammar="anthropic"
    )
    assert one_byte.findings == whole
    rng = random.Random(case.name)
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, max(2, len(body))), k=min(6, max(0, len(body) - 1))))
        pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
        assert check_chunks(pieces, settings, grammar="anthropic").findings == whole


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_crlf_framing_changes_nothing_but_the_wire_finding(case: Path) -> None:
    """The same events framed with CRLF: the same codes plus W003, however the bytes are cut
    (a cut between CR and LF included)."""
    body = (case / "stream.sse").read_bytes().replace(b"\n", b"\r\n")
    settings = case_settings(case)
    whole = _check(body, settings)
    assert whole.codes == _expected(case) | {"W003"}, [str(d) for d in whole.findings]
    one_byte = check_chunks(
        (body[i : i + 1] for i in range(len(body))), settings, grammar="anthropic"
    )
    assert one_byte.findings == whole.findings


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_auto_detection_picks_anthropic(case: Path) -> None:
    body = (case / "stream.sse").read_bytes()
    result = check_bytes(body, case_settings(case), grammar="auto")
    assert result.grammar == "anthropic"
    assert result.codes == _expected(case)


def _assert_located(body: bytes, settings: Settings, diagnostics: list[Any], name: str) -> None:
    events = decoded_events(body, settings)
    starts = {ev.frame: (ev.frame, ev.line, ev.offset) for ev in events}
    last = starts[events[-1].frame] if events else (None, 1, 0)
    for d in diagnostics:
        where = (name, str(d))
        if d.code in AT_END:
            assert where_of(d) == last, where
        elif d.frame in starts:
            assert where_of(d) == starts[d.frame], where
        else:  # a line that belongs to no dispatched event
            assert d.code.startswith("W"), where
            assert starts_a_line(body, d.offset), where
            assert not any(ev.offset <= d.offset < ev.end for ev in events), where


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_every_location_is_where_an_event_starts(case: Path) -> None:
    """Each finding names the event it is about and points at its first line; one about the
    end of the stream names the last event."""
    body = (case / "stream.sse").read_bytes()
    settings = case_settings(case)
    _assert_located(body, settings, _check(body, settings).findings, case.name)


def test_every_anthropic_rule_has_a_failing_case() -> None:
    demonstrated = {p.name.split("-")[0] for p in HERE.glob("fail/*")}
    missing = set(A_CODES) - demonstrated
    assert not missing, f"A rules with no fail/ case: {sorted(missing)}"


def test_fail_cases_report_their_own_code() -> None:
    for case in HERE.glob("fail/*"):
        assert case.name.split("-")[0] in _expected(case), case.name


def test_pass_cases_have_nothing_beyond_info() -> None:
    for case in HERE.glob("pass/*"):
        assert all(RULES[c].severity is Severity.INFO for c in _expected(case)), case.name


# -- the rules ---------------------------------------------------------------------------------


def test_the_rules_name_the_grammars_invariants() -> None:
    assert GRAMMAR_INVARIANTS["anthropic"] == INVARIANTS
    used = {RULES[c].invariant for c in A_CODES}
    assert used - {None} == set(INVARIANTS)  # each invariant has rules, each rule one of them
    for name in INVARIANTS:
        assert name == name.lower() and " " not in name and "_" not in name


def test_every_rule_is_documented() -> None:
    for code in A_CODES:
        d = doc(code)
        for part in (d.what, d.why, d.clients, d.example, d.fix):
            assert part.strip(), code
        assert RULES[code].summary.endswith("."), code


def test_rule_modules_are_one_per_rule_and_imported_in_order() -> None:
    folder = ROOT / "sseconform" / "rules" / "anthropic" / "rules"
    modules = sorted(p.stem for p in folder.glob("a[0-9][0-9][0-9]_*.py"))
    assert [m[:4].upper() for m in modules] == A_CODES
    for m in modules:
        code = m[:4].upper()
        assert m[5:] == RULES[code].name.replace("-", "_"), m
    init = (folder / "__init__.py").read_text()
    positions = [init.index(f"    {m},\n") for m in modules]
    assert positions == sorted(positions)


# -- the schemas -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(EVENT_TYPES))
def test_schema_is_valid_draft_2020_12(kind: str) -> None:
    jsonschema.Draft202012Validator.check_schema(load_schema(schema_name(kind)))


def _frames(paths: list[Path]) -> list[tuple[str, str, dict[str, Any]]]:
    out = []
    for path in paths:
        events, _ = decode_all(path.read_bytes())
        for ev in events:
            try:
                obj = orjson.loads(ev.data)
            except orjson.JSONDecodeError:
                continue
            if isinstance(obj, dict) and obj.get("type") in EVENT_TYPES:
                out.append((f"{path.name}#{ev.frame}", obj["type"], obj))
    return out


def _agree(frames: list[tuple[str, str, dict[str, Any]]]) -> None:
    """jsonschema-rs and the reference `jsonschema` give the same verdict and pointers."""
    ref = {k: jsonschema.Draft202012Validator(load_schema(schema_name(k))) for k in EVENT_TYPES}
    for where, kind, obj in frames:
        fast = validator(schema_name(kind))
        errors = list(ref[kind].iter_errors(obj))
        assert fast.is_valid(obj) == (not errors), (where, [e.message for e in errors])
        if errors:
            assert {pointer_of(list(e.instance_path)) for e in fast.iter_errors(obj)} == {
                pointer_of(list(e.absolute_path)) for e in errors
            }, where


def test_validators_agree_on_case_frames() -> None:
    frames = _frames([p / "stream.sse" for p in CASE_DIRS])
    assert len(frames) > 400
    _agree(frames)


# -- the real streams --------------------------------------------------------------------------


def _rows() -> list[dict[str, str]]:
    if not MANIFEST.is_file():
        return []
    with open(MANIFEST, newline="", encoding="utf-8") as f:
        return [r for r in csv.DictReader(f, delimiter="\t") if r["api"] == "anthropic-messages"]


ROWS = _rows()
LIVE = [r for r in ROWS if not r["path"].startswith("_edited/")]
needs_corpus = pytest.mark.skipif(not ROWS, reason="../shared/real-streams is not present")

#: The warnings a live capture may carry, and why: what the provider itself sent.
KNOWN_WARNINGS = {
    # Cut by max_tokens inside a tool_use block, the block is never closed before
    # message_delta (MANIFEST: "blocks never stopped: [1]").
    "anthropic/incomplete-partial-json__anthropic-sdk-python.sse": {"A008"},
}


def _unterminated(row: dict[str, str]) -> bool:
    """anthropic-sdk-python's fixtures are stored without the blank line after the last event
    (MANIFEST: "last event not terminated by blank line"): an artefact of the file, not of
    the stream the API sent."""
    return "last event not terminated by blank line" in row["notes"]


@needs_corpus
def test_the_corpus_has_anthropic_streams() -> None:
    assert len(LIVE) >= 90


@needs_corpus
@pytest.mark.parametrize("row", LIVE, ids=lambda r: r["path"])
def test_real_anthropic_stream_passes(row: dict[str, str]) -> None:
    """Every live capture passes with no error and no warning but what its provider sends."""
    body = (REAL_STREAMS / row["path"]).read_bytes()
    if _unterminated(row):
        as_stored = _check(body)
        assert {"W011", "A020"} <= as_stored.codes  # the dropped last event is message_stop
        body += b"\n\n"
    result = _check(body)
    assert result.frames > 0
    allowed = KNOWN_WARNINGS.get(row["path"], set())
    assert result.codes <= allowed, [str(d) for d in result.findings]
    assert result.ok(), [str(d) for d in result.findings]


@needs_corpus
def test_real_streams_are_detected_as_anthropic() -> None:
    for r in LIVE:
        assert check_bytes((REAL_STREAMS / r["path"]).read_bytes(), grammar="auto").grammar == (
            "anthropic"
        ), r["path"]


@needs_corpus
def test_edited_fixtures_report_what_was_edited_in() -> None:
    """The hand-made fixtures of a duplicated and of a spliced message_start."""
    edited = REAL_STREAMS / "_edited" / "anthropic"
    dup = _check((edited / "duplicate-message-start__vercel-ai.sse").read_bytes())
    assert dup.codes == {"A002"}
    spliced = _check((edited / "spliced-message-start__vercel-ai.sse").read_bytes())
    assert {"A002", "A004"} <= spliced.codes
    for r in ROWS:
        assert _check((REAL_STREAMS / r["path"]).read_bytes()).error is None


@needs_corpus
def test_every_location_in_the_real_streams_is_where_an_event_starts() -> None:
    for r in ROWS:
        body = (REAL_STREAMS / r["path"]).read_bytes()
        _assert_located(body, Settings(), _check(body).findings, r["path"])


@needs_corpus
def test_validators_agree_on_the_real_streams() -> None:
    frames = _frames([REAL_STREAMS / r["path"] for r in ROWS])
    assert len(frames) > 5000
    _agree(frames)


# -- bounded state -----------------------------------------------------------------------------


def _event(obj: dict[str, Any]) -> bytes:
    kind: str = obj["type"]
    return b"event: " + kind.encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n"


def test_state_does_not_grow_with_the_stream() -> None:
    """Ten thousand blocks, each closed: none is kept, nor any text."""
    checker = AnthropicChecker()
    checker.feed(
        _event(
            {
                "type": "message_start",
                "message": {
                    "id": "msg_bounded",
                    "type": "message",
                    "role": "assistant",
                    "model": "claude-test",
                    "content": [],
                    "usage": {"input_tokens": 1, "output_tokens": 1},
                },
            }
        )
    )
    for i in range(10_000):
        checker.feed(
            _event(
                {
                    "type": "content_block_start",
                    "index": i,
                    "content_block": {"type": "text", "text": ""},
                }
            )
            + _event(
                {
                    "type": "content_block_delta",
                    "index": i,
                    "delta": {"type": "text_delta", "text": "x" * 100},
                }
            )
            + _event({"type": "content_block_stop", "index": i})
        )
    assert checker._s.open == {}
    assert checker._s.next_index == 10_000
    assert checker.finish()[0].code == "A020"


def test_tool_input_over_the_limit_is_not_kept() -> None:
    checker = AnthropicChecker(Settings(max_arguments=100))
    start = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "tool_use", "id": "toolu_x", "name": "f", "input": {}},
    }
    piece = {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "input_json_delta", "partial_json": "x" * 60},
    }
    checker.feed(_event(start) + _event(piece) + _event(piece) + _event(piece))
    block = checker._s.open[0]
    assert block.size == 180 and sum(len(p) for p in block.parts) <= 100


# -- the command line --------------------------------------------------------------------------


def _cli(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return forked.completed(
        [sys.executable, "-m", "sseconform", *map(str, args)], cwd=ROOT, text=True, timeout=120
    )


def test_cli_exit_codes() -> None:
    ok = _cli("check", "--grammar", "anthropic", HERE / "pass" / "tool-use" / "stream.sse")
    assert ok.returncode == 0, ok.stdout + ok.stderr
    bad = _cli("check", "--grammar", "anthropic", HERE / "fail" / "A003-delta-without-block-start")
    assert bad.returncode == 1 and "A003" in bad.stdout, bad.stdout + bad.stderr
    warn = HERE / "fail" / "A007-blocks-overlap" / "stream.sse"
    assert _cli("check", "--grammar", "anthropic", warn).returncode == 0
    assert _cli("check", "--grammar", "anthropic", "--strict", warn).returncode == 1


def test_cli_json_names_the_grammar() -> None:
    run = _cli(
        "check",
        "--grammar",
        "anthropic",
        "--format",
        "json",
        HERE / "fail" / "A009-thinking-in-text-block" / "stream.sse",
    )
    assert run.returncode == 1, run.stderr
    doc_ = json.loads(run.stdout)
    [f] = doc_["files"]
    assert f["grammar"] == "anthropic"
    [d] = f["findings"]
    assert d["code"] == "A009" and d["invariant"] == "delta-matches-block"
    auto = _cli("check", "--grammar", "auto", "--format", "json", HERE / "pass" / "text")
    assert auto.returncode == 0, auto.stderr
    assert json.loads(auto.stdout)["files"][0]["grammar"] == "anthropic"
