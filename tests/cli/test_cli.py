"""The real command line, run as a subprocess: exit codes, inputs, selection, settings, rules.

Exit codes: 0 no error; 1 errors (or warnings under --strict); 2 unusable input or bad
arguments. No run may print a traceback (``run_cli`` asserts it on every call).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sseconform import __version__
from sseconform.gate.timing_rules import RULES as TIMING_RULES
from sseconform.recording.format import Response, write_recording
from sseconform.rules.catalog import RULES
from tests.cli.helpers import Run, run_cli
from tests.conftest import CASES

PASS = CASES / "pass" / "plain-text" / "stream.sse"
PASS_INFO = CASES / "pass" / "ping-comments"  # W006 infos only
FAIL = CASES / "fail" / "T001-head-missing-id" / "stream.sse"
WARN = CASES / "fail" / "W003-crlf-framing" / "stream.sse"  # one warning, no error
TWO = CASES / "fail" / "T002-nameless-call-bad-arguments" / "stream.sse"  # T002 + F009
MANY = CASES / "fail" / "W008-id-field" / "stream.sse"  # W008 five times

DOC_SECTIONS = (
    "## What it does",
    "## Why it matters",
    "## Which clients break",
    "## Example",
    "## Fix",
)


def _codes(run: Run) -> list[str]:
    doc = json.loads(run.out)
    return sorted(d["code"] for f in doc["files"] for d in f["findings"])


def _paths(run: Run) -> list[str]:
    return [f["path"] for f in json.loads(run.out)["files"]]


def _pyproject(where: Path, body: str) -> Path:
    path = where / "pyproject.toml"
    path.write_text('[project]\nname = "x"\n\n[tool.sseconform]\n' + body)
    return path


# -- exit codes ----------------------------------------------------------------------------


def test_pass_exits_0(workdir: Path) -> None:
    run = run_cli("check", PASS, cwd=workdir)
    assert run.code == 0
    assert run.out.startswith("ok: 1 file checked, 0 failed")
    assert run.err == ""


def test_infos_only_exit_0_even_when_strict(workdir: Path) -> None:
    assert run_cli("check", PASS_INFO, cwd=workdir).code == 0
    assert run_cli("check", "--strict", PASS_INFO, cwd=workdir).code == 0


def test_fail_exits_1(workdir: Path) -> None:
    run = run_cli("check", FAIL, cwd=workdir)
    assert run.code == 1
    assert " T001 error head-missing-id " in run.out
    assert run.out.splitlines()[-1].startswith("FAILED: 1 file checked, 1 failed")


def test_warnings_fail_only_under_strict(workdir: Path) -> None:
    plain = run_cli("check", WARN, cwd=workdir)
    assert plain.code == 0
    assert " W003 warning " in plain.out
    strict = run_cli("check", "--strict", WARN, cwd=workdir)
    assert strict.code == 1
    assert "(strict: warnings fail)" in strict.out
    assert run_cli("check", "--no-strict", WARN, cwd=workdir).code == 0


def test_one_failing_file_fails_the_run(workdir: Path) -> None:
    run = run_cli("check", PASS, FAIL, PASS, cwd=workdir)
    assert run.code == 1
    assert "3 files checked, 1 failed" in run.out


def test_version(workdir: Path) -> None:
    run = run_cli("--version", cwd=workdir)
    assert run.code == 0
    assert run.out.strip() == f"sseconform {__version__}"


def test_missing_file_exits_2(workdir: Path) -> None:
    run = run_cli("check", "nothere.sse", cwd=workdir)
    assert run.code == 2
    assert "sseconform: error: nothere.sse: no such file" in run.err


def test_missing_file_among_good_ones_still_exits_2(workdir: Path) -> None:
    run = run_cli("check", "--format", "json", PASS, "nothere.sse", FAIL, cwd=workdir)
    assert run.code == 2
    doc = json.loads(run.out)
    assert [f["error"] is not None for f in doc["files"]] == [False, True, False]
    assert doc["summary"]["unusable"] == 1
    assert _codes(run) == ["T001"]


def test_directory_without_stream_files_exits_2(workdir: Path) -> None:
    empty = workdir / "streams"
    empty.mkdir()
    (empty / "notes.txt").write_text("not a stream\n")
    (empty / "data.json").write_text('{"a": 1}\n')
    run = run_cli("check", "streams", cwd=workdir)
    assert run.code == 2
    assert "streams: no stream files" in run.err
    assert run.out == ""


@pytest.mark.parametrize("fmt", ["xml", "TEXT", "sarif-2"])
def test_unknown_format_exits_2(workdir: Path, fmt: str) -> None:
    run = run_cli("check", "--format", fmt, PASS, cwd=workdir)
    assert run.code == 2
    assert "unknown format" in run.err
    assert "text, json, junit, github" in run.err
    assert run.out == ""


def test_empty_format_exits_2(workdir: Path) -> None:
    run = run_cli("check", "--format", "", PASS, cwd=workdir)
    assert run.code == 2


@pytest.mark.parametrize("option", ["--select", "--ignore"])
@pytest.mark.parametrize("value", ["Z999", "T999", "X", "not-a-rule", "T001,nope"])
def test_unknown_selector_exits_2(workdir: Path, option: str, value: str) -> None:
    run = run_cli("check", option, value, PASS, cwd=workdir)
    assert run.code == 2
    assert f"sseconform: error: {option}:" in run.err
    assert "is not a rule code" in run.err
    assert run.out == ""


def test_stdin_twice_exits_2(workdir: Path) -> None:
    run = run_cli("check", "-", "-", cwd=workdir, stdin=PASS.read_bytes())
    assert run.code == 2
    assert "standard input (-) can be given only once" in run.err


def test_glob_without_match_exits_2(workdir: Path) -> None:
    run = run_cli("check", "*.sse", cwd=workdir)
    assert run.code == 2
    assert "*.sse: no file matches" in run.err


def test_no_paths_exits_2(workdir: Path) -> None:
    run = run_cli("check", cwd=workdir)
    assert run.code == 2
    assert "Missing argument" in run.err


def test_unknown_option_exits_2(workdir: Path) -> None:
    assert run_cli("check", "--frobnicate", PASS, cwd=workdir).code == 2


def test_max_per_code_caps_and_counts(workdir: Path) -> None:
    run = run_cli("check", "--max-per-code", "2", MANY, cwd=workdir)
    assert run.code == 0
    assert run.out.count(" W008 warning ") == 2
    assert "W008: 3 more diagnostics not shown" in run.out
    assert "5 warnings" in run.out  # the totals still count what was held back


def test_max_per_code_zero_is_not_an_internal_error(workdir: Path) -> None:
    run = run_cli("check", "--max-per-code", "0", FAIL, cwd=workdir)
    assert "internal error" not in run.err
    assert run.code in (1, 2)


# -- inputs --------------------------------------------------------------------------------


def test_dash_reads_stdin(workdir: Path) -> None:
    bad = run_cli("check", "-", cwd=workdir, stdin=FAIL.read_bytes())
    assert bad.code == 1
    assert bad.out.startswith("<stdin>:3: T001 error head-missing-id")
    good = run_cli("check", "-", cwd=workdir, stdin=PASS.read_bytes())
    assert good.code == 0


def test_dash_with_files(workdir: Path) -> None:
    run = run_cli("check", "-f", "json", PASS, "-", cwd=workdir, stdin=FAIL.read_bytes())
    assert run.code == 1
    assert _paths(run) == [str(PASS), "<stdin>"]
    assert _codes(run) == ["T001"]


def test_dash_reads_a_recording_from_stdin(workdir: Path) -> None:
    rec = workdir / "rec.jsonl"
    write_recording(
        rec,
        [(0.1, FAIL.read_bytes())],
        response=Response(200, "OK", "HTTP/1.1", [("content-type", "text/event-stream")]),
    )
    run = run_cli("check", "-f", "json", "-", cwd=workdir, stdin=rec.read_bytes())
    assert run.code == 1
    doc = json.loads(run.out)
    assert doc["files"][0]["kind"] == "recording"
    assert _codes(run) == ["T001"]


def test_empty_stdin(workdir: Path) -> None:
    run = run_cli("check", "-f", "json", "-", cwd=workdir, stdin=b"")
    assert run.code == 1
    assert _codes(run) == ["E003"]


@pytest.fixture
def tree(workdir: Path) -> Path:
    """streams/: .sse files at two depths, a recording, and files that are not streams."""
    root = workdir / "streams"
    (root / "sub" / "deeper").mkdir(parents=True)
    shutil.copy(PASS, root / "a.sse")
    shutil.copy(FAIL, root / "sub" / "b.sse")
    shutil.copy(WARN, root / "sub" / "deeper" / "c.SSE")
    write_recording(root / "sub" / "rec.jsonl", [(0.1, PASS.read_bytes())])
    (root / "notes.txt").write_text("hello\n")
    (root / "config.json").write_text('{"format": "other"}\n')
    (root / "expected.txt").write_text("T001\n")
    (root / "raw.bin").write_bytes(PASS.read_bytes())
    return workdir


def test_directory_expands_to_stream_files(tree: Path) -> None:
    run = run_cli("check", "-f", "json", "streams", cwd=tree)
    assert run.code == 1
    assert _paths(run) == [
        "streams/a.sse",
        "streams/sub/b.sse",
        "streams/sub/deeper/c.SSE",
        "streams/sub/rec.jsonl",
    ]
    kinds = [f["kind"] for f in json.loads(run.out)["files"]]
    assert kinds == ["sse", "sse", "sse", "recording"]


def test_glob_expands(tree: Path) -> None:
    run = run_cli("check", "-f", "json", "streams/*.sse", cwd=tree)
    assert _paths(run) == ["streams/a.sse"]
    assert run.code == 0
    run = run_cli("check", "-f", "json", "streams/**/*.sse", cwd=tree)
    assert _paths(run) == ["streams/a.sse", "streams/sub/b.sse"]
    assert run.code == 1


def test_glob_matching_a_directory_walks_it(tree: Path) -> None:
    run = run_cli("check", "-f", "json", "streams/su?", cwd=tree)
    assert _paths(run) == ["streams/sub/b.sse", "streams/sub/deeper/c.SSE", "streams/sub/rec.jsonl"]


def test_a_file_given_by_name_is_checked_whatever_its_suffix(tree: Path) -> None:
    run = run_cli("check", "-f", "json", "streams/raw.bin", cwd=tree)
    assert run.code == 0
    assert _paths(run) == ["streams/raw.bin"]


def test_output_file(workdir: Path) -> None:
    on_stdout = run_cli("check", FAIL, PASS, cwd=workdir)
    run = run_cli("check", "--output", "report.txt", FAIL, PASS, cwd=workdir)
    assert run.code == 1
    assert run.out == ""
    assert (workdir / "report.txt").read_text(encoding="utf-8") == on_stdout.out
    run = run_cli("check", "-o", "report.json", "-f", "json", FAIL, cwd=workdir)
    assert run.code == 1
    assert json.loads((workdir / "report.json").read_text())["summary"]["errors"] == 1


def test_output_file_replaces_an_old_report_with_force(workdir: Path) -> None:
    (workdir / "report.txt").write_text("old report\n" * 100)
    run = run_cli("check", "-o", "report.txt", PASS, cwd=workdir)
    assert run.code == 2 and "report.txt: exists (use --force to replace it)" in run.err
    run_cli("check", "-o", "report.txt", PASS, "--force", cwd=workdir)
    assert (workdir / "report.txt").read_text().startswith("ok: 1 file checked")


def test_output_to_an_unwritable_place_exits_2(workdir: Path) -> None:
    run = run_cli("check", "-o", "no/such/dir/report.txt", PASS, cwd=workdir)
    assert run.code == 2
    assert "cannot write the report" in run.err


# -- selection -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "codes"),
    [
        ((), ["F009", "T002"]),
        (("--select", "T002"), ["T002"]),
        (("--select", "t002"), ["T002"]),
        (("--select", "T"), ["T002"]),
        (("--select", "t"), ["T002"]),
        (("--select", "T00"), ["T002"]),
        (("--select", "tool-call-head"), ["T002"]),
        (("--select", "arguments-invalid-json"), ["F009"]),
        (("--select", "final-empty-delta"), ["F009"]),
        (("--select", "ALL"), ["F009", "T002"]),
        (("--select", "T,F"), ["F009", "T002"]),
        (("--select", "T", "--select", "F009"), ["F009", "T002"]),
        (("--select", "W"), []),
        (("--ignore", "T002"), ["F009"]),
        (("--ignore", "F"), ["T002"]),
        (("--ignore", "final-empty-delta"), ["T002"]),
        (("--ignore", "head-missing-name"), ["F009"]),
        (("--ignore", "T002,F009"), []),
        (("--ignore", "T", "--ignore", "F"), []),
        (("--select", "T,F", "--ignore", "tool-call-head"), ["F009"]),
    ],
)
def test_select_and_ignore(workdir: Path, args: tuple[str, ...], codes: list[str]) -> None:
    run = run_cli("check", "-f", "json", *args, TWO, cwd=workdir)
    assert _codes(run) == codes
    assert run.code == (1 if codes else 0)


def test_ignored_warning_no_longer_fails_strict(workdir: Path) -> None:
    assert run_cli("check", "--strict", "--ignore", "W003", WARN, cwd=workdir).code == 0
    assert run_cli("check", "--strict", "--ignore", "W", WARN, cwd=workdir).code == 0
    assert run_cli("check", "--strict", "--ignore", "crlf-framing", WARN, cwd=workdir).code == 0


# -- settings from [tool.sseconform] --------------------------------------------------------


def test_config_select_and_ignore(workdir: Path) -> None:
    _pyproject(workdir, 'select = ["T", "F"]\nignore = ["tool-call-head"]\n')
    run = run_cli("check", "-f", "json", TWO, cwd=workdir)
    assert _codes(run) == ["F009"]


def test_flags_override_config_selection(workdir: Path) -> None:
    _pyproject(workdir, 'select = ["F"]\nignore = ["F009"]\n')
    assert _codes(run_cli("check", "-f", "json", TWO, cwd=workdir)) == []
    assert _codes(run_cli("check", "-f", "json", "--select", "T", TWO, cwd=workdir)) == ["T002"]
    run = run_cli("check", "-f", "json", "--ignore", "T", TWO, cwd=workdir)
    assert _codes(run) == ["F009"]  # --ignore replaces the file's ignore; its select stays


def test_config_strict(workdir: Path) -> None:
    _pyproject(workdir, "strict = true\n")
    assert run_cli("check", WARN, cwd=workdir).code == 1
    assert run_cli("check", "--no-strict", WARN, cwd=workdir).code == 0
    _pyproject(workdir, "strict = false\n")
    assert run_cli("check", WARN, cwd=workdir).code == 0
    assert run_cli("check", "--strict", WARN, cwd=workdir).code == 1


def test_config_format(workdir: Path) -> None:
    _pyproject(workdir, 'format = "json"\n')
    run = run_cli("check", FAIL, cwd=workdir)
    assert json.loads(run.out)["summary"]["errors"] == 1
    run = run_cli("check", "--format", "text", FAIL, cwd=workdir)
    assert run.out.startswith(f"{FAIL}:3: T001")
    _pyproject(workdir, 'format = "github"\n')
    assert run_cli("check", FAIL, cwd=workdir).out.startswith("::error file=")


def test_config_max_per_code(workdir: Path) -> None:
    _pyproject(workdir, "max-per-code = 1\n")
    run = run_cli("check", MANY, cwd=workdir)
    assert run.out.count(" W008 ") == 1
    assert "W008: 4 more diagnostics not shown" in run.out


def test_config_max_line_bytes(workdir: Path) -> None:
    _pyproject(workdir, "max-line-bytes = 100\n")
    run = run_cli("check", "-f", "json", PASS, cwd=workdir)
    assert "W017" in _codes(run)
    assert run.code == 1


def test_config_found_in_a_parent_directory(workdir: Path) -> None:
    _pyproject(workdir, 'select = ["F"]\n')
    sub = workdir / "a" / "b"
    sub.mkdir(parents=True)
    assert _codes(run_cli("check", "-f", "json", TWO, cwd=sub)) == ["F009"]


def test_config_option_names_the_file(workdir: Path) -> None:
    other = workdir / "elsewhere"
    other.mkdir()
    settings = _pyproject(other, 'select = ["T"]\n')
    run = run_cli("check", "-f", "json", "--config", settings, TWO, cwd=workdir)
    assert _codes(run) == ["T002"]
    run = run_cli("check", "--config", "missing.toml", PASS, cwd=workdir)
    assert run.code == 2
    assert "cannot read settings" in run.err


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('colour = "red"\n', "unknown key(s) in [tool.sseconform]: colour"),
        ('select = ["T"]\nseverity = "x"\n', "unknown key(s) in [tool.sseconform]: severity"),
        ('select = "T"\n', "select must be a list of strings"),
        ("ignore = [1, 2]\n", "ignore must be a list of strings"),
        ('select = ["Z999"]\n', "'Z999' is not a rule code"),
        ('ignore = ["nope"]\n', "'nope' is not a rule code"),
        ('strict = "yes"\n', "strict must be true or false"),
        ("max-per-code = 0\n", "max-per-code must be a positive integer"),
        ('max-line-bytes = "1k"\n', "max-line-bytes must be a positive integer"),
        ("max-arguments-bytes = true\n", "max-arguments-bytes must be a positive integer"),
        ('format = "xml"\n', "unknown format 'xml'"),
        ("select = [\n", "cannot read settings"),
    ],
)
def test_bad_config_exits_2(workdir: Path, body: str, message: str) -> None:
    _pyproject(workdir, body)
    run = run_cli("check", PASS, cwd=workdir)
    assert run.code == 2
    assert run.err.startswith("sseconform: error: ")
    assert message in run.err
    assert run.out == ""


def test_tool_sseconform_that_is_not_a_table(workdir: Path) -> None:
    (workdir / "pyproject.toml").write_text('[tool]\nsseconform = "strict"\n')
    run = run_cli("check", PASS, cwd=workdir)
    assert run.code == 2
    assert "must be a table" in run.err


# -- rules and rule ------------------------------------------------------------------------


def test_rules_lists_every_code(workdir: Path) -> None:
    run = run_cli("rules", cwd=workdir)
    assert run.code == 0
    lines = run.out.splitlines()
    from sseconform.gate.rules import ordered

    gate = ordered()  # the gate's rules: timing first, in report order, then each family
    assert [r.code for r in gate[: len(TIMING_RULES)]] == [r.key for r in TIMING_RULES]
    assert [ln.split()[0] for ln in lines] == list(RULES) + [r.code for r in gate]
    codes = {r.code for r in gate}
    assert {"transport:silent", "transport:head-too-large", "history:refused"} <= codes
    assert {r.family for r in gate} == {"timing", "expect", "transport", "upstream", "diff",
                                        "history", "request"}  # fmt: skip
    for line, rule in zip(lines, [*RULES.values(), *gate], strict=True):
        assert rule.severity.value in line and rule.summary in line, line
        assert rule.name in line


def test_rules_json(workdir: Path) -> None:
    run = run_cli("rules", "--format", "json", cwd=workdir)
    assert run.code == 0
    rows = json.loads(run.out)
    from sseconform.gate.rules import ordered

    assert [r["code"] for r in rows] == list(RULES) + [r.code for r in ordered()]
    assert {r["grammar"] for r in rows[len(RULES) :]} == {"gate"}
    keys = {"code", "name", "severity", "invariant", "grammar", "summary"}
    assert all(set(r) == keys for r in rows[: len(RULES)])
    assert all(set(r) == keys | {"family"} for r in rows[len(RULES) :])


def test_rules_of_one_grammar(workdir: Path) -> None:
    run = run_cli("rules", "--grammar", "chat", "--format", "json", cwd=workdir)
    rows = json.loads(run.out)
    assert {r["grammar"] for r in rows} == {"any", "chat"}
    assert [r["code"] for r in rows] == [c for c, r in RULES.items() if r.applies_to("chat")]
    run = run_cli("rules", "--grammar", "bedrock", cwd=workdir)
    assert run.code == 2 and "unknown grammar 'bedrock'" in run.err


def test_rules_unknown_format_exits_2(workdir: Path) -> None:
    run = run_cli("rules", "--format", "xml", cwd=workdir)
    assert run.code == 2
    assert "unknown format" in run.err


@pytest.mark.parametrize("key", ["T001", "t001", "head-missing-id"])
def test_rule_prints_its_docs(workdir: Path, key: str) -> None:
    run = run_cli("rule", key, cwd=workdir)
    assert run.code == 0
    lines = run.out.splitlines()
    assert lines[0] == "T001 head-missing-id (error; invariant: tool-call-head)"
    assert lines[2] == RULES["T001"].summary
    positions = [run.out.index(s) for s in DOC_SECTIONS]
    assert positions == sorted(positions)
    example = run.out.split("## Example\n", 1)[1].split("## Fix", 1)[0]
    assert example.startswith("    data: ") or example.startswith("    …\n")
    assert '"tool_calls"' in example and "(cut from tests/cases/fail/T001-" in example


def test_rule_by_code_and_by_name_agree(workdir: Path) -> None:
    assert (
        run_cli("rule", "T001", cwd=workdir).out
        == run_cli("rule", "head-missing-id", cwd=workdir).out
    )


def test_rule_without_invariant(workdir: Path) -> None:
    run = run_cli("rule", "W001", cwd=workdir)
    assert run.out.splitlines()[0] == "W001 invalid-utf8 (error; invariant: none)"


@pytest.mark.parametrize(
    ("key", "applies"),
    [
        ("turn2:history:refused", "is the rule history:refused - found in turn 2 of the "
         "conversation."),
        ("diff:lost:reasoning", "is the rule diff:lost - the detail 'reasoning' is what was lost."),
        ("request:lost:temperature", "is the rule request:lost - the request parameter "
         "'temperature' is what was lost."),
        ("turn3:diff:changed:tool_calls[1].arguments", "is the rule diff:changed - found in "
         "turn 3 of the conversation; the detail 'tool_calls[1].arguments' is what changed."),
        ("turn2:F007", "is the rule F007 - found in turn 2 of the conversation."),
    ],
)  # fmt: skip
def test_rule_takes_a_key_as_a_report_prints_it(workdir: Path, key: str, applies: str) -> None:
    """A key copied from a report: a line says which part is the rule, then its page."""
    run = run_cli("rule", key, cwd=workdir)
    assert run.code == 0, run.both
    first, blank, rest = run.out.split("\n", 2)
    assert (first, blank) == (f"{key} {applies}", "")
    rule_id = applies.split()[3]
    assert rest == run_cli("rule", rule_id, cwd=workdir).out


def _every_key() -> list[str]:
    """Every key a check, gate or diff report can print, made by :attr:`Finding.key` itself
    from every rule in the catalogs: a grammar rule's code, a gate rule's family and kind,
    a difference's or a request parameter's field, a later turn's prefix."""
    from sseconform.gate.rules import ordered
    from sseconform.rules.finding import Finding

    fields = [None, "reasoning", "tool_calls[1].arguments", "state.thought-signature",
              "usage.prompt_tokens", "temperature", "request.tools", "odd:name"]  # fmt: skip
    keys: set[str] = set()
    for rule in [*RULES.values(), *ordered()]:
        for turn in (1, 2, 12):
            for field in fields:
                keys.add(Finding.of(rule, "m", field=field, turn=turn).key)
    return sorted(keys)


def test_every_key_a_report_prints_resolves() -> None:
    from typer.testing import CliRunner

    from sseconform.cli.main import app
    from sseconform.rules.catalog import GATE_RULES, get
    from sseconform.rules.finding import split_key

    keys = _every_key()
    assert any(k.startswith("turn2:diff:lost:") for k in keys)  # the catalogs were read
    for key in keys:  # each resolves to a rule, as the command resolves it
        parts = split_key(key)
        assert parts.rule_id in GATE_RULES or (
            ":" not in parts.rule_id and parts.detail is None and get(parts.rule_id)
        ), key
    runner = CliRunner()
    # the command prints each page (every page is printed by test_every_rule_has_docs...):
    # a key in 19, every family and turn among them, is enough to hold it to the lookup
    for key in keys[::19]:
        result = runner.invoke(app, ["rule", key])
        assert result.exit_code == 0, (key, result.output)
        assert f"\n{split_key(key).rule_id} " in "\n" + result.output, (key, result.output)
        assert "## Fix" in result.output, key


@pytest.mark.parametrize(
    "key", ["ZZZ", "T999", "T", "tool-call-head", "", "history:nothing", "turn2:", "E002:x",
            "turn2:ZZZ", "T001:reasoning"]
)  # fmt: skip
def test_unknown_rule_exits_2(workdir: Path, key: str) -> None:
    run = run_cli("rule", key, cwd=workdir)
    assert run.code == 2
    assert f"sseconform: error: no rule {key!r}" in run.err
    assert run.out == ""


def test_every_rule_has_docs_in_every_section(monkeypatch: pytest.MonkeyPatch) -> None:
    """All codes in one process (a subprocess each would be slow), the app holding only the
    ``rule`` command as a run of it does (typer builds every command it holds at each
    invoke): docs exist and print."""
    from typer.testing import CliRunner

    from sseconform.cli.main import app

    only = [c for c in app.registered_commands if c.name == "rule"]
    assert len(only) == 1
    monkeypatch.setattr(app, "registered_commands", only)
    runner = CliRunner()
    for code, rule in RULES.items():
        result = runner.invoke(app, ["rule", code])
        assert result.exit_code == 0, (code, result.output)
        assert result.output.startswith(f"{code} {rule.name} ({rule.severity.value}; ")
        for section in DOC_SECTIONS:
            assert section in result.output, (code, section)
            body = result.output.split(section + "\n", 1)[1].split("\n## ", 1)[0]
            assert body.strip(), (code, section)


def test_a_start_builds_the_command_it_runs_and_the_help_lists_all(tmp_path: Path) -> None:
    """``main`` keeps only the named command on the app (a lighter start): the command runs
    with its own options and help; with none named, the help lists every command, and a
    misspelt one gets typer's suggestion."""
    from sseconform.cli.app import app

    names = {c.name or c.callback.__name__ for c in app.registered_commands if c.callback}
    r = run_cli("--help", cwd=tmp_path)
    assert r.code == 0
    for name in names:
        assert name.replace("_", "-") in r.out, name
    r = run_cli("rule", "A001", cwd=tmp_path)
    assert r.code == 0 and r.out.startswith("A001 ")
    r = run_cli("check", "--help", cwd=tmp_path)
    assert r.code == 0 and "Usage:" in r.out and " check " in r.out
    r = run_cli("chek", cwd=tmp_path)
    assert r.code == 2 and "Did you mean 'check'?" in r.err
