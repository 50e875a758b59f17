"""The open-responses grammar: the Open Responses specification's MUSTs on top of the
responses rules. Its case folders (exact codes, every split, every location), its schema
(valid draft 2020-12, the same verdicts as the reference validator), its rules (one case and
one cited section each), the compliance suite's templates as streams, and the real OpenAI
streams read as the specification's (what they lack, said precisely).
"""

from __future__ import annotations

import csv
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest

from sseconform import FileResult, Settings, check_bytes, check_chunks
from sseconform.rules.catalog import RULES, Severity, doc
from sseconform.rules.open_responses.spec import SCHEMA, core_events
from sseconform.rules.schema import load_schema, spec_validator
from sseconform.sse import decode_all
from tests import forked
from tests.conftest import CASES, REAL_STREAMS, ROOT
from tests.test_cases import decoded_events, starts_a_line, where_of

GRAMMAR = "open-responses"
HERE = CASES / GRAMMAR
CASE_DIRS = sorted(p for p in HERE.glob("*/*") if (p / "stream.sse").is_file())
IDS = [f"{p.parent.name}/{p.name}" for p in CASE_DIRS]
O_CODES = sorted(c for c, r in RULES.items() if r.grammar == GRAMMAR)
AT_END = frozenset({"S040", "W018", "O005", "O011"})
DOCS = ROOT / "docs" / "open-responses.md"


def _expected(case: Path) -> set[str]:
    return {ln.strip() for ln in (case / "expected.txt").read_text().splitlines() if ln.strip()}


def _check(body: bytes, settings: Settings | None = None) -> FileResult:
    return check_bytes(body, settings, grammar=GRAMMAR)


# -- the cases ---------------------------------------------------------------------------------


def test_there_are_cases() -> None:
    assert len(CASE_DIRS) >= 25


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_case_codes(case: Path) -> None:
    result = _check((case / "stream.sse").read_bytes())
    assert result.grammar == GRAMMAR
    assert result.codes == _expected(case), [str(d) for d in result.findings]


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_case_split_invariance(case: Path) -> None:
    """One byte at a time and random cuts: the same diagnostics in the same places."""
    body = (case / "stream.sse").read_bytes()
    whole = _check(body).findings
    one = check_chunks((body[i : i + 1] for i in range(len(body))), grammar=GRAMMAR)
    assert one.findings == whole
    rng = random.Random(case.name)
    cuts = sorted(rng.sample(range(1, len(body)), k=min(8, len(body) - 1)))
    pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    assert check_chunks(pieces, grammar=GRAMMAR).findings == whole


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_crlf_framing_adds_only_the_wire_finding(case: Path) -> None:
    """The compliance suite's own parser drops every event of a CRLF stream; the
    specification does not forbid CRLF, so sseconform says W003 and reads on."""
    body = (case / "stream.sse").read_bytes()
    assert _check(body.replace(b"\n", b"\r\n")).codes == _expected(case) | {"W003"}


@pytest.mark.parametrize("case", CASE_DIRS, ids=IDS)
def test_every_location_is_where_an_event_starts(case: Path) -> None:
    body = (case / "stream.sse").read_bytes()
    events = decoded_events(body, Settings())
    starts = {ev.frame: (ev.frame, ev.line, ev.offset) for ev in events}
    last = starts[events[-1].frame]
    for d in _check(body).findings:
        if d.code in AT_END:
            assert where_of(d) == last, str(d)
        elif d.frame in starts:
            assert where_of(d) == starts[d.frame], str(d)
        else:
            assert d.code.startswith("W") and starts_a_line(body, where_of(d)[2]), str(d)


def test_every_rule_has_a_failing_case_that_reports_it() -> None:
    demonstrated = {p.name.split("-")[0] for p in HERE.glob("fail/*")}
    assert set(O_CODES) - demonstrated == set()
    for case in HERE.glob("fail/*"):
        assert case.name.split("-")[0] in _expected(case), case.name


def test_pass_cases_have_no_finding_at_all() -> None:
    for case in HERE.glob("pass/*"):
        assert _check((case / "stream.sse").read_bytes()).findings == [], case.name


def test_every_rule_cites_its_section_of_the_specification() -> None:
    for code in O_CODES:
        d = doc(code)
        assert d.spec.startswith("Open Responses") and "§" in d.spec, code
        assert d.what and d.why and d.clients and d.example and d.fix, code


def test_must_rules_are_errors_and_the_descriptive_one_a_warning() -> None:
    for code in O_CODES:
        said = doc(code).spec
        want = Severity.WARNING if "not a MUST" in said else Severity.ERROR
        assert RULES[code].severity is want, code


def test_the_responses_rules_hold_too() -> None:
    """A profile on top: a .done that disagrees with its deltas is S030 here as well."""
    body = (HERE / "pass" / "suite-basic-response" / "stream.sse").read_bytes()
    bad = body.replace(b'"text":"Hello there, friend.","seq', b'"text":"Hello there, foe.","seq', 1)
    assert bad != body
    assert "S030" in _check(bad).codes


def test_a_done_sentinel_is_required_not_reported() -> None:
    """[DONE] after the terminal event is the specification's; the responses grammar's S060
    calls it a chat shape. Without it: O005."""
    body = (HERE / "pass" / "suite-basic-response" / "stream.sse").read_bytes()
    assert "S060" in check_bytes(body, grammar="responses").codes
    assert _check(body).codes == set()
    assert _check(body.removesuffix(b"data: [DONE]\n\n")).codes == {"O005"}


def test_an_extension_event_is_not_unknown() -> None:
    body = (HERE / "pass" / "extension-item-and-event" / "stream.sse").read_bytes()
    assert "S065" in check_bytes(body, grammar="responses").codes  # OpenAI's grammar: unknown
    assert _check(body).codes == set()


# -- the schema --------------------------------------------------------------------------------


def test_schema_is_valid_draft_2020_12_and_has_the_24_core_events() -> None:
    jsonschema.Draft202012Validator.check_schema(load_schema(SCHEMA))
    assert len(core_events()) == 24
    assert "response.reasoning.delta" in core_events()
    assert "response.reasoning_text.delta" not in core_events()


def _frames(paths: list[Path]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for path in paths:
        for ev in decode_all(path.read_bytes())[0]:
            try:
                obj = orjson.loads(ev.data)
            except orjson.JSONDecodeError:
                continue
            if isinstance(obj, dict) and obj.get("type") in core_events():
                out.append((obj["type"], obj))
    return out


def test_validators_agree_with_the_reference() -> None:
    """jsonschema-rs (the checker's) and jsonschema (the reference) give the same verdicts,
    on the cases and on real OpenAI streams (which lack the specification's fields)."""
    doc_ = load_schema(SCHEMA)
    paths = [p / "stream.sse" for p in CASE_DIRS]
    paths += sorted((REAL_STREAMS / "openai").glob("*.sse"))[:20] if REAL_STREAMS.is_dir() else []
    frames = _frames(paths)
    assert len(frames) > 300
    verdicts = set()
    for kind, obj in frames:
        ref = jsonschema.Draft202012Validator({**doc_, "$ref": f"#/$defs/event:{kind}"})
        fast = spec_validator(SCHEMA, "event:" + kind).is_valid(obj)
        assert fast == ref.is_valid(obj), (kind, obj)
        verdicts.add(fast)
    assert verdicts == {True, False}


# -- the compliance suite, and the docs' comparison table ---------------------------------------

#: The suite's templates (openresponses/openresponses, src/lib/compliance-tests.ts) that send
#: a request a stream answers, and the case that is that stream.
TEMPLATES = {
    "basic-response": "pass/suite-basic-response",
    "streaming-response": "pass/suite-streaming-response",
    "system-prompt": "pass/suite-system-prompt",
    "tool-calling": "pass/suite-tool-calling",
    "tool-calling-streaming": "pass/suite-tool-calling",
    "image-input": "pass/suite-image-input",
    "multi-turn": "pass/suite-multi-turn",
    "assistant-phase": "pass/suite-assistant-phase",
    "file-input": "pass/suite-file-input",
    "previous-response-id": "pass/suite-previous-response-id",
    "function-call-roundtrip": "pass/suite-function-call-roundtrip",
}


def test_every_template_of_the_suite_is_a_case_and_a_row_of_the_table() -> None:
    table = DOCS.read_text(encoding="utf-8")
    for template, case in TEMPLATES.items():
        assert (HERE / case / "stream.sse").is_file(), case
        assert f"`{template}`" in table, template
        assert case in table, case


def test_the_table_names_every_rule_of_the_grammar() -> None:
    table = DOCS.read_text(encoding="utf-8")
    for code in O_CODES:
        assert f"`{code}`" in table, code


# -- real streams read as the specification's ---------------------------------------------------

MANIFEST = REAL_STREAMS / "MANIFEST.tsv"


def _openai_rows() -> list[dict[str, str]]:
    if not MANIFEST.is_file():
        return []
    with open(MANIFEST, newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["api"] == "responses"]
    return [r for r in rows if r["provider"] == "openai" and not r["path"].startswith("_")]


@pytest.mark.skipif(not _openai_rows(), reason="../shared/real-streams is not present")
def test_openai_streams_fall_short_of_the_specification_as_expected() -> None:
    """OpenAI's own streams send no [DONE] (O005, every one); older ones leave out resource
    fields the specification requires (O001: presence_penalty, completed_at, ...), and hosted
    tools are OpenAI's names, unprefixed (O002, O006). Nothing else: the specification's
    schemas take what OpenAI sends today."""
    seen: set[str] = set()
    for row in _openai_rows():
        body = (REAL_STREAMS / row["path"]).read_bytes()
        result = _check(body)
        assert result.error is None
        assert "O005" in result.codes, row["path"]
        assert result.codes <= {"O001", "O002", "O005", "O006", "S010", "S023", "S030"}, row
        seen |= result.codes
    assert {"O001", "O002", "O005", "O006"} <= seen


# -- the command line --------------------------------------------------------------------------


def test_cli_grammar_open_responses() -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "sseconform", *args]
        return forked.completed(cmd, text=True, cwd=ROOT, timeout=120)

    good = HERE / "pass" / "suite-tool-calling" / "stream.sse"
    bad = HERE / "fail" / "O005-done-missing" / "stream.sse"
    assert run("check", "-g", GRAMMAR, str(good)).returncode == 0
    failed = run("check", "-g", GRAMMAR, "-f", "json", str(bad))
    assert failed.returncode == 1 and '"grammar": "open-responses"' in failed.stdout
    listed = run("rules", "--grammar", GRAMMAR)
    assert listed.returncode == 0 and "O005" in listed.stdout and "S030" in listed.stdout
    shown = run("rule", "O005")
    assert "## Specification" in shown.stdout and "§ HTTP Responses" in shown.stdout


def test_a_done_before_the_terminal_event_is_not_the_one_the_spec_asks_for() -> None:
    """[DONE] early (S061), then the terminal event and the end: still no [DONE] after it."""
    body = (HERE / "pass" / "suite-basic-response" / "stream.sse").read_bytes()
    events = body.removesuffix(b"data: [DONE]\n\n").split(b"\n\n")
    early = b"\n\n".join([*events[:2], b"data: [DONE]", *events[2:]])
    assert {"S061", "O005"} <= _check(early).codes
