"""``sseconform gate`` end to end: a real (small) gateway on loopback, replay as its upstream.

sseconform.demo.gateway.Gateway (the demo gateway) translates every upstream dialect to
chunks, and can be told to make the mistakes real gateways make; each mistake must fail
exactly the scenarios it affects, with the expected finding codes, located at bytes really
present in the gateway's recorded stream.
"""

from __future__ import annotations

import json
import re
import socket
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sseconform.demo.gateway import Gateway
from sseconform.gate.result import ScenarioResult, SuiteResult
from sseconform.gate.runner import run_suite
from sseconform.gate.scenario import Scenario
from sseconform.gate.suite import Suite, builtin_suite, load_suite
from sseconform.gate.upstream import as_served
from sseconform.recording.format import RecordingReader
from sseconform.replay.plan import load
from tests.cli.helpers import Run, run_cli
from tests.gate import real

DIALECTS = ("anthropic", "gemini", "responses", "openai")
OTHERS = ("gemini", "responses", "openai")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def recorded_body(path: str) -> bytes:
    with open(path, "rb") as fp:
        return b"".join(b for _, b in RecordingReader(fp, path).reads())


def gate(
    suite: Suite,
    out: Path,
    bugs: set[str] | None = None,
    select: Callable[[Scenario], bool] | None = None,
) -> SuiteResult:
    """Run ``suite`` through a Gateway (with ``bugs``) whose upstream is the replay server."""
    suite.speed = 0
    port = free_port()
    gw = Gateway(f"http://127.0.0.1:{port}", bugs)
    with gw.running():
        return run_suite(suite, gw.url, str(out), upstream_port=port, select=select)


def named(names: set[str]) -> Callable[[Scenario], bool]:
    return lambda sc: sc.name in names


def by_name(result: SuiteResult) -> dict[str, ScenarioResult]:
    return {s.name: s for s in result.scenarios}


def error_codes(s: ScenarioResult) -> set[str]:
    return {f.code for f in s.findings if f.severity == "error"}


# -- a correct gateway ------------------------------------------------------------------------

CORRECT = {s.name for s in builtin_suite("anthropic").scenarios} | {
    f"{d}/{x}" for d in OTHERS for x in ("text", "tool-call", "dropped-mid-stream", "rate-limited")
}


def test_a_correct_gateway_passes(tmp_path: Path) -> None:
    result = gate(builtin_suite("all"), tmp_path, select=named(CORRECT))
    got = by_name(result)
    assert set(got) == CORRECT
    assert len(got) == 18 + 4 * 3
    assert result.passed, [(s.name, s.findings) for s in result.scenarios if not s.passed]
    assert result.gateway.startswith("http://127.0.0.1:")
    for s in result.scenarios:
        # the reference translation this gateway uses carries the state (a Gemini call's
        # thoughtSignature in reasoning_details): nothing to say of any scenario
        assert s.passed and s.findings == [], (s.name, s.findings)
        assert s.upstream_requests == 1 + len(s.turns), s.name
        assert Path(s.recording) == tmp_path / f"{s.name.replace('/', '-')}.jsonl"
        assert Path(s.recording).is_file()
        label = s.name.split("/")[1]
        if label in ("rate-limited", "overloaded"):
            assert s.expect == "rejected"
            code = 529 if label == "overloaded" else 429
            assert (s.status, s.note) == (code, f"rejected with HTTP {code}")
        else:
            assert s.status == 200, s.name
    assert got["anthropic/stall"].expect == "content-or-error"
    assert got["anthropic/stall"].note == "answered in full"
    assert got["anthropic/stall"].seconds >= 2  # the stall really happened
    assert got["anthropic/error-mid-stream"].expect == "error"
    assert got["gemini/dropped-mid-stream"].expect == "error"
    # what the client got is the upstream's answer: the recording is a chunk stream
    body = recorded_body(got["anthropic/text"].recording)
    assert body.startswith(b"data: {") and body.endswith(b"data: [DONE]\n\n")


# -- gateways with bugs -----------------------------------------------------------------------

#: per bug mode, the other dialects' scenarios run besides the anthropic ones (stall aside)
EXTRA = {
    "lose-token": ("text", "max-tokens", "error-mid-stream", "dropped-mid-stream"),
    "wrong-finish": ("text", "max-tokens"),
    "silent-close": ("text", "error-mid-stream", "dropped-mid-stream"),
    "ok-on-error-status": ("text", "rate-limited"),
    "restart": ("text", "dropped-mid-stream"),
    "retry": ("rate-limited", "dropped-mid-stream"),
}

#: the scenarios each bug must fail, with their error codes
FAILS: dict[str, dict[str, set[str]]] = {
    # The third content delta is dropped: every answer with three text deltas or more loses
    # one. Gemini's text has two; the anthropic and responses streams are dropped before
    # their third; and where the third delta is the last before an upstream error (anthropic
    # and gemini error-mid-stream), losing it looks like stopping short, which is allowed.
    "lose-token": {
        "anthropic/text": {"lost"},
        "anthropic/text-then-call": {"lost"},
        "anthropic/reasoning": {"lost"},
        "anthropic/slow-reasoning": {"lost"},
        "anthropic/usage": {"lost"},
        "anthropic/max-tokens": {"lost"},
        "anthropic/content-filter": {"lost"},
        "anthropic/slow-stream": {"lost"},
        "anthropic/long-silence": {"lost"},
        "anthropic/agent-loop": {"lost"},  # its second turn's answer
        "gemini/max-tokens": {"lost"},
        "gemini/text": {"lost"},
        "responses/text": {"lost"},
        "responses/max-tokens": {"lost"},
        "responses/error-mid-stream": {"lost"},
        "openai/text": {"lost"},
        "openai/max-tokens": {"lost"},
        "openai/dropped-mid-stream": {"lost"},
    },
    # length -> stop (Gemini's finish comes out of the translator's finish(), which this
    # gateway does not rewrite)
    "wrong-finish": {
        "anthropic/max-tokens": {"changed"},
        "responses/max-tokens": {"changed"},
        "openai/max-tokens": {"changed"},
    },
    "silent-close": {
        f"{d}/{x}": {"E003", "missing"}
        for d in DIALECTS
        for x in ("error-mid-stream", "dropped-mid-stream")
    },
    "ok-on-error-status": {
        "anthropic/rate-limited": {"rejected"},
        "anthropic/overloaded": {"rejected"},
        **{f"{d}/rate-limited": {"rejected"} for d in OTHERS},
    },
    # the responses stream is dropped before its first text delta: nothing to repeat
    "restart": {f"{d}/dropped-mid-stream": {"R001", "duplicated"} for d in DIALECTS},
    "retry": {},
}


def selection(bug: str) -> set[str]:
    anthropic = {s.name for s in builtin_suite("anthropic").scenarios} - {"anthropic/stall"}
    return anthropic | {f"{d}/{x}" for d in OTHERS for x in EXTRA[bug]}


@pytest.fixture(scope="module")
def bug_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[[str], SuiteResult]]:
    """Each bug mode's run, made once for the tests that grade it and locate its findings."""
    cache: dict[str, SuiteResult] = {}

    def run(bug: str) -> SuiteResult:
        if bug not in cache:
            out = tmp_path_factory.mktemp(bug)
            cache[bug] = gate(builtin_suite("all"), out, {bug}, named(selection(bug)))
        return cache[bug]

    yield run


@pytest.mark.parametrize("bug", list(FAILS))
def test_each_bug_fails_exactly_its_scenarios(
    bug: str, bug_run: Callable[[str], SuiteResult]
) -> None:
    result = bug_run(bug)
    got = by_name(result)
    assert set(got) == selection(bug)
    assert set(FAILS[bug]) <= set(got)
    failed = {s.name: error_codes(s) for s in result.scenarios if not s.passed}
    assert failed == FAILS[bug]
    for s in result.scenarios:  # a passing scenario has no error finding
        assert s.passed == (not error_codes(s)), s


def test_lose_token_findings(bug_run: Callable[[str], SuiteResult]) -> None:
    for s in bug_run("lose-token").scenarios:
        for f in s.findings:
            assert (f.source, f.code, f.field) == ("diff", "lost", "text"), (s.name, f)
            assert "chars the upstream sent are missing at char" in f.message
            assert "; upstream frame " in f.message  # located in both streams


def test_wrong_finish_findings(bug_run: Callable[[str], SuiteResult]) -> None:
    result = bug_run("wrong-finish")
    for name in FAILS["wrong-finish"]:
        [f] = by_name(result)[name].findings
        assert (f.source, f.code, f.field) == ("diff", "changed", "finish_reason")
        assert "finish_reason 'stop', the upstream's maps to 'length'" in f.message
        assert f.offset is not None
        body = recorded_body(by_name(result)[name].recording)
        event = body[f.offset : body.index(b"\n\n", f.offset)]
        assert b'"finish_reason":"stop"' in event


def test_silent_close_findings(bug_run: Callable[[str], SuiteResult]) -> None:
    result = bug_run("silent-close")
    for name in FAILS["silent-close"]:
        s = by_name(result)[name]
        assert s.expect == "error"
        assert s.status == 200
        kinds = {(f.source, f.code, f.field) for f in s.findings}
        assert kinds == {("check", "E003", None), ("diff", "missing", "error")}, name
        [missing] = [f for f in s.findings if f.code == "missing"]
        assert "the gateway's client never got an error frame" in missing.message


def test_ok_on_error_status_findings(bug_run: Callable[[str], SuiteResult]) -> None:
    result = bug_run("ok-on-error-status")
    for name in FAILS["ok-on-error-status"]:
        s = by_name(result)[name]
        assert (s.expect, s.status, s.upstream_requests) == ("rejected", 200, 1)
        [f] = s.findings
        assert (f.source, f.code, f.frame, f.offset) == ("expect", "rejected", 1, 0)
        assert "answered HTTP 200 and then an error event" in f.message
        assert f.excerpt is not None and f.excerpt.startswith('data: {"error"')


def test_restart_findings(bug_run: Callable[[str], SuiteResult]) -> None:
    result = bug_run("restart")
    for name in FAILS["restart"]:
        s = by_name(result)[name]
        assert s.upstream_requests == 2
        [dup] = [f for f in s.findings if f.code == "duplicated"]
        assert (dup.source, dup.field) == ("diff", "text")
        assert "sent twice" in dup.message and "restarted" in dup.message
        assert "asked 2 times: a failover" in dup.message, dup.message
        [r001] = [f for f in s.findings if f.code == "R001"]
        assert r001.source == "check"
        assert r001.offset is not None and dup.offset is not None
        assert r001.offset < dup.offset  # the new start, then the repeated text
        warnings = [f for f in s.findings if f.severity == "warning"]
        assert [(f.source, f.code) for f in warnings] == [("expect", "failover")]


def test_retry_is_a_clean_retry(bug_run: Callable[[str], SuiteResult]) -> None:
    result = bug_run("retry")
    assert result.passed
    got = by_name(result)
    for name in (
        "anthropic/rate-limited",
        "anthropic/overloaded",
        *(f"{d}/rate-limited" for d in OTHERS),
    ):
        s = got[name]
        assert (s.expect, s.status, s.upstream_requests) == ("rejected", 200, 2), name
        assert s.note == "retried (2 upstream requests)"
        assert s.findings == []  # the wait Retry-After asked for is not first-token time
        tm = s.timing
        assert tm is not None and tm.retry_wait_s is not None, name
        if name.startswith("anthropic/"):  # its 429 and 529 name one; Gemini's none
            assert tm.retry_after_s == 1, (name, tm)
        if tm.retry_after_s is not None:
            assert tm.retry_wait_s >= tm.retry_after_s - 0.05, (name, tm)
    assert got["anthropic/text"].upstream_requests == 1


# -- every location is real -------------------------------------------------------------------


UPSTREAM_AT = re.compile(r"; upstream frame (\d+) \(byte (\d+)\)$")


@pytest.mark.parametrize("bug", list(FAILS))
def test_every_finding_points_at_its_bytes(bug: str, bug_run: Callable[[str], SuiteResult]) -> None:
    scenarios = {sc.name: sc for sc in builtin_suite("all").scenarios}
    located = 0
    for s in bug_run(bug).scenarios:
        # each turn's findings are located in that turn's recording
        paths = [s.recording, *s.turns] if s.status is not None else []
        bodies = [recorded_body(p) for p in paths]
        for f in s.findings:
            if f.offset is None:
                continue
            body = bodies[f.turn - 1]
            starts = real.event_starts(body)  # events only (keepalive comments are none)
            where = (s.name, f.code, f.frame, f.offset)
            assert 0 <= f.offset < len(body), where
            assert f.offset == 0 or body[: f.offset].endswith(b"\n\n"), where
            assert f.frame is not None and starts[f.frame - 1] == f.offset, where
            assert f.excerpt, where
            assert body[f.offset :].startswith(f.excerpt.encode()), where
            located += 1
            sc = scenarios[s.name]
            m = UPSTREAM_AT.search(f.message)
            if f.source == "diff" and sc.fault is None and not sc.translate:
                # the upstream's side: an event of the native recording as served (with
                # the pings of its quiet spell, if any)
                assert m is not None, where
                served = sc.recording if f.turn == 1 else sc.turns[f.turn - 2].recording
                native = b"".join(b for _, b in as_served(sc, load(served)).reads)
                at = int(m.group(2))
                assert at == 0 or native[:at].endswith((b"\n\n", b"\r\n\r\n")), where
                assert native[at:].startswith((b"event:", b"data:")), where
    if FAILS[bug]:
        assert located >= len(FAILS[bug])


def test_end_of_stream_findings_point_at_the_last_event(
    bug_run: Callable[[str], SuiteResult],
) -> None:
    for s in bug_run("silent-close").scenarios:
        body = recorded_body(s.recording)
        for f in s.findings:
            if f.code == "E003":
                assert f.frame is not None and f.offset is not None
                assert real.event_starts(body)[f.frame - 1] == f.offset
                assert f.excerpt and body[f.offset :].startswith(f.excerpt.encode())


# -- a suite of one's own ---------------------------------------------------------------------


def own_suite(tmp_path: Path) -> Path:
    path = tmp_path / "suite.toml"
    path.write_text(
        """
name = "own"
speed = 0

[[scenario]]
name = "error after event 3"
recording = "builtin:anthropic/text-anthropic.jsonl"
fault = "error-at=3"
expect = "error"

[[scenario]]
name = "translated usage"
recording = "builtin:anthropic/usage-anthropic.jsonl"
translate = true
usage = true

[[scenario]]
name = "plain text"
recording = "builtin:gemini/text-gemini.jsonl"
""",
        encoding="utf-8",
    )
    return path


def test_own_suite_through_a_correct_gateway(tmp_path: Path) -> None:
    result = gate(load_suite(str(own_suite(tmp_path))), tmp_path / "out")
    got = by_name(result)
    assert list(got) == ["error after event 3", "translated usage", "plain text"]
    assert result.passed, [(s.name, s.findings) for s in result.scenarios]
    assert got["error after event 3"].expect == "error"
    assert got["translated usage"].expect == "content"
    assert (tmp_path / "out" / "error-after-event-3.jsonl").is_file()
    body = recorded_body(got["error after event 3"].recording)
    assert b'"error"' in body and body.endswith(b"data: [DONE]\n\n")
    usage = recorded_body(got["translated usage"].recording)
    assert b'"usage":{' in usage  # asked for, and passed on


def test_own_suite_through_a_silent_gateway(tmp_path: Path) -> None:
    result = gate(load_suite(str(own_suite(tmp_path))), tmp_path / "out", {"silent-close"})
    got = by_name(result)
    assert not got["error after event 3"].passed
    assert "missing" in error_codes(got["error after event 3"])
    assert got["translated usage"].passed and got["plain text"].passed


# -- the command line -------------------------------------------------------------------------


@pytest.fixture
def gateway(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    """A running Gateway (bugs from an indirect parameter) and the upstream port it uses."""
    bugs = set(getattr(request, "param", "").split(",")) - {""}
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", bugs).running() as gw:
        yield gw.url, port


def gate_cli(cwd: Path, url: str, port: int, *args: str, only: str = "anthropic/t*") -> Run:
    """``sseconform gate`` on the built-in anthropic suite, scenarios ``only``, at speed 0."""
    return run_cli(
        "gate",
        "--gateway",
        url,
        "--upstream-port",
        str(port),
        "--suite",
        "builtin:anthropic",
        "--only",
        only,
        "--speed",
        "0",
        *args,
        cwd=cwd,
    )


T_STAR = ["anthropic/text", "anthropic/tool-call", "anthropic/text-then-call"]


def test_cli_gate_passes(tmp_path: Path, gateway: tuple[str, int]) -> None:
    url, port = gateway
    r = gate_cli(tmp_path, url, port, "--out", "out")
    assert r.code == 0, r.both
    assert f"sseconform gate: upstream (replay) on http://127.0.0.1:{port}" in r.err
    for name in T_STAR:
        assert f"  PASS {name} (" in r.err
    assert r.out.startswith(f"sseconform gate: builtin:anthropic through {url}\n")
    assert r.out.rstrip().endswith("3/3 scenarios passed")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        f"{n.replace('/', '-')}.jsonl" for n in T_STAR
    )


def test_cli_gate_json_passes(tmp_path: Path, gateway: tuple[str, int]) -> None:
    url, port = gateway
    r = gate_cli(tmp_path, url, port, "--out", "out", "--format", "json")
    assert r.code == 0, r.both
    doc = json.loads(r.out)
    assert doc["passed"] is True
    assert [s["name"] for s in doc["scenarios"]] == T_STAR


@pytest.mark.parametrize("gateway", ["lose-token"], indirect=True)
@pytest.mark.parametrize("fmt", ["text", "json", "junit", "github"])
def test_cli_gate_fails(tmp_path: Path, gateway: tuple[str, int], fmt: str) -> None:
    url, port = gateway
    r = gate_cli(tmp_path, url, port, "--out", "out", "--format", fmt)
    assert r.code == 1, r.both
    failing = {"anthropic/text", "anthropic/text-then-call"}  # tool-call has no text deltas
    assert "  FAIL anthropic/text (" in r.err and "  PASS anthropic/tool-call (" in r.err
    if fmt == "text":
        assert "FAIL anthropic/text (expect content; HTTP 200" in r.out
        assert "    diff:lost:text error: " in r.out  # the finding, as check prints one
        assert "      | data: {" in r.out  # the excerpt
        assert "      help: sseconform rule diff:lost" in r.out
        assert r.out.rstrip().endswith("1/3 scenarios passed (2 failed)")
    elif fmt == "json":
        doc = json.loads(r.out)
        keys = {"gateway", "profile", "passed", "untested", "gateway_down", "summary", "suites",
                "scenarios"}  # fmt: skip
        assert set(doc) == keys and doc["gateway_down"] is None
        assert doc["suites"] == [
            {
                "suite": "builtin:anthropic",
                "upstream": f"http://127.0.0.1:{port}",
                "passed": False,
                "scenarios": 3,
            }
        ]
        assert doc["gateway"] == url
        assert doc["profile"] is None
        assert doc["summary"] == {
            "scenarios": 3,
            "pass": 1,
            "known": 0,
            "fail": 2,
            "unreached": 0,
            "not-applicable": 0,
            "not-graded": 0,
        }
        assert doc["passed"] is False
        assert [s["name"] for s in doc["scenarios"]] == T_STAR
        for s in doc["scenarios"]:
            assert set(s) == {
                "name",
                "suite",
                "dialect",
                "endpoint",
                "verdict",
                "upstream_log",
                "baseline_fixed",
                "expect",
                "passed",
                "status",
                "recording",
                "turn_recordings",
                "upstream_requests",
                "seconds",
                "note",
                "timing",
                "findings",
            }
            assert set(s["timing"]) >= {"added_first_token_s", "longest_silence_s"}
            assert s["passed"] == (s["name"] not in failing)
            assert s["verdict"] == ("fail" if s["name"] in failing else "pass")
            assert s["suite"] == "builtin:anthropic" and s["dialect"] == "anthropic"
            assert len(s["upstream_log"]) == 1 and "/v1/messages" in s["upstream_log"][0]
            assert (tmp_path / s["recording"]).is_file()
            for f in s["findings"]:
                assert set(f) == {
                    "source",
                    "code",
                    "name",
                    "invariant",
                    "line",
                    "pointer",
                    "message",
                    "severity",
                    "frame",
                    "offset",
                    "excerpt",
                    "field",
                    "known",
                    "turn",
                    "key",
                    "docs",
                }
                assert (f["source"], f["code"], f["field"]) == ("diff", "lost", "text")
                assert f["docs"] == "sseconform rule diff:lost"  # as check's JSON says it
                assert f["key"] == "diff:lost:text" and f["known"] is False
                body = recorded_body(str(tmp_path / s["recording"]))
                assert body[f["offset"] :].startswith(f["excerpt"].encode())
    elif fmt == "junit":
        root = ET.fromstring(r.out)
        assert root.tag == "testsuites"
        assert (root.get("tests"), root.get("failures")) == ("3", "2")
        [suite] = root
        cases = suite.findall("testcase")
        assert [c.get("name") for c in cases] == T_STAR
        for c in cases:
            fail = c.find("failure")
            if c.get("name") in failing:
                assert fail is not None
                assert fail.get("type") == "diff:lost"
                assert fail.get("message") == "1 finding(s): diff:lost:text"
                assert fail.text and "diff:lost:text error: " in fail.text
            else:
                assert fail is None
    else:
        lines = r.out.splitlines()
        assert lines[-1] == "sseconform gate: 1/3 scenarios passed (2 failed)"
        assert len(lines) == 3  # one finding per failing scenario
        for line, name in zip(lines, ["anthropic/text", "anthropic/text-then-call"], strict=False):
            assert line.startswith("::error file=")
            assert f"title={name} diff%3Alost%3Atext::" in line
            assert "frame " in line and "byte " in line


@pytest.mark.parametrize("gateway", ["lose-token"], indirect=True)
def test_cli_gate_report_to_a_file(tmp_path: Path, gateway: tuple[str, int]) -> None:
    url, port = gateway
    r = gate_cli(tmp_path, url, port, "--out", "out", "--format", "junit", "-o", "gate.xml")
    assert r.code == 1, r.both
    # the report is in the file; stdout has its one-line verdict, for a CI log
    [line] = r.out.splitlines()
    assert line.startswith("sseconform gate: ") and line.endswith("; junit report in gate.xml")
    assert "scenarios passed" in line
    root = ET.parse(tmp_path / "gate.xml").getroot()
    assert root.get("failures") == "2"
    r = gate_cli(tmp_path, url, port, "--out", "out2", "--format", "junit", "-o", "gate.xml")
    assert r.code == 2
    assert "gate.xml: exists (use --force to replace it)" in r.err


def test_cli_refuses_a_non_empty_out(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    r = run_cli(
        "gate",
        "--gateway",
        "http://127.0.0.1:9",
        "--suite",
        "builtin:anthropic",
        "--out",
        "out",
        cwd=tmp_path,
    )
    assert r.code == 2
    assert r.out == ""
    assert "out: exists and is not empty (use --force" in r.err
    assert [p.name for p in out.iterdir()] == ["keep.txt"]
    assert (out / "keep.txt").read_text() == "mine"


def test_cli_refuses_a_file_as_out(tmp_path: Path) -> None:
    (tmp_path / "out").write_text("mine")
    r = run_cli("gate", "--gateway", "http://127.0.0.1:9", "--out", "out", cwd=tmp_path)
    assert r.code == 2
    assert "exists and is not empty" in r.err
    assert (tmp_path / "out").read_text() == "mine"


def test_cli_force_writes_into_a_non_empty_out(tmp_path: Path, gateway: tuple[str, int]) -> None:
    url, port = gateway
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("mine")
    r = gate_cli(tmp_path, url, port, "--out", "out", "--force", only="anthropic/text")
    assert r.code == 0, r.both
    assert sorted(p.name for p in out.iterdir()) == ["anthropic-text.jsonl", "keep.txt"]
    assert (out / "keep.txt").read_text() == "mine"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("anthropic", "--model 'anthropic': give DIALECT=NAME"),
        ("anthropic=", "--model 'anthropic=': give DIALECT=NAME"),
        ("cohere=command", "--model: unknown dialect(s) cohere"),
    ],
)
def test_cli_model_validation(tmp_path: Path, value: str, message: str) -> None:
    r = run_cli(
        "gate",
        "--gateway",
        "http://127.0.0.1:9",
        "--suite",
        "builtin:anthropic",
        "--model",
        value,
        "--out",
        "out",
        cwd=tmp_path,
    )
    assert r.code == 2
    assert f"sseconform: error: {message}" in r.err
    assert not (tmp_path / "out").exists()


def test_cli_model_is_what_the_gateway_is_asked_for(
    tmp_path: Path, gateway: tuple[str, int]
) -> None:
    url, port = gateway
    r = gate_cli(
        tmp_path,
        url,
        port,
        "--model",
        "anthropic=claude-x",
        "--format",
        "json",
        only="anthropic/text",
    )
    assert r.code == 1, r.both
    [s] = json.loads(r.out)["scenarios"]
    assert s["status"] == 404  # this gateway does not know the model
    assert s["verdict"] == "unreached"  # so the upstream never saw a request
    [f] = s["findings"]
    assert (f["source"], f["code"]) == ("upstream", "not-reached")
    assert "HTTP 404" in f["message"]
    assert s["recording"] == "sseconform-gate/anthropic-text.jsonl"  # the default --out
    with open(tmp_path / s["recording"], "rb") as fp:
        req = RecordingReader(fp, s["recording"]).request
    assert req is not None and req["body"]["model"] == "claude-x"


def test_cli_missing_suite_file(tmp_path: Path) -> None:
    r = run_cli(
        "gate",
        "--gateway",
        "http://127.0.0.1:9",
        "--suite",
        "nope.toml",
        "--out",
        "out",
        cwd=tmp_path,
    )
    assert r.code == 2
    assert r.out == ""
    assert r.err.strip() == "sseconform: error: nope.toml: no such file"


def test_cli_bad_suite_names_file_and_scenario(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text('[[scenario]]\nname = "x"\nrecording = "a"\nfault = "?"\n')
    r = run_cli("gate", "--gateway", "http://127.0.0.1:9", "--suite", "s.toml", cwd=tmp_path)
    assert r.code == 2
    assert "sseconform: error: s.toml: scenario 1 ('x'): unknown fault '?'" in r.err


def test_cli_unknown_format_and_no_match(tmp_path: Path) -> None:
    r = run_cli("gate", "--gateway", "http://127.0.0.1:9", "--format", "xml", cwd=tmp_path)
    assert r.code == 2
    assert "unknown format 'xml'" in r.err
    r = run_cli(
        "gate",
        "--gateway",
        "http://127.0.0.1:9",
        "--suite",
        "builtin:gemini",
        "--only",
        "anthropic/*",
        "--out",
        "out",
        cwd=tmp_path,
    )
    assert r.code == 2
    assert "no scenario matched --only" in r.err


def test_a_suite_only_left_empty_prints_no_block(tmp_path: Path) -> None:
    """Two suites, ``--only`` matching in one: the other says nothing (no empty block)."""
    r = run_cli(
        "gate", "--gateway", "http://127.0.0.1:9", "--suite", "builtin:gemini",
        "--suite", "builtin:anthropic", "--only", "anthropic/text", "--out", "out",
        cwd=tmp_path,
    )  # fmt: skip
    assert r.code == 1, r.both
    assert "builtin:anthropic through" in r.out and "builtin:gemini" not in r.out, r.out


def test_cli_gateway_not_listening(tmp_path: Path) -> None:
    closed = free_port()
    r = run_cli(
        "gate",
        "--gateway",
        f"http://127.0.0.1:{closed}",
        "--suite",
        "builtin:anthropic",
        "--only",
        "anthropic/text",
        "--only",
        "anthropic/rate-limited",
        "--format",
        "json",
        "--out",
        "out",
        cwd=tmp_path,
    )
    assert r.code == 1, r.both
    doc = json.loads(r.out)
    assert [s["name"] for s in doc["scenarios"]] == ["anthropic/text", "anthropic/rate-limited"]
    for s in doc["scenarios"]:  # nothing listens: nothing was graded, nothing failed
        assert (s["verdict"], s["status"], s["upstream_requests"]) == ("not-graded", None, 0)
        assert s["note"] == f"not graded: nothing listens at http://127.0.0.1:{closed}"
    assert doc["untested"].endswith("refused every connection: is it running there?")
    assert "nothing was tested" in r.err


def test_cli_negative_timeout(tmp_path: Path, gateway: tuple[str, int]) -> None:
    url, port = gateway
    r = gate_cli(tmp_path, url, port, "--timeout", "-5", only="anthropic/text")
    assert r.code == 2, r.both
