"""Timing verdicts: what a gateway adds to when each piece of the answer arrives.

The test gateway (``gateway.py``) streams faithfully, or holds frames as its timing bugs say:
``buffer`` (the whole answer at the end), ``hold-first`` (nothing until content),
``drop-keepalive`` (the upstream's pings go nowhere, and the gateway sends none of its own).
The upstream replays the bundled Anthropic text at recorded speed, re-timed to be slow
(``spread``) or quiet (``quiet``).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sseconform.demo.gateway import Gateway
from sseconform.errors import UsageError
from sseconform.findings import Finding
from sseconform.gate.result import ScenarioResult
from sseconform.gate.runner import confirmed, run_suite
from sseconform.gate.suite import load_suite, recordings_dir
from sseconform.gate.timing import Budgets, parse_budget
from sseconform.rules.catalog import Severity
from tests.cli.helpers import run_cli
from tests.gate.test_gate import free_port

TEXT = recordings_dir() / "anthropic" / "text-anthropic.jsonl"
KEYS = {
    "upstream_first_token_s",
    "gateway_first_token_s",
    "added_first_token_s",
    "added_first_event_s",
    "added_delay_p50_s",
    "added_delay_p99_s",
    "added_delay_max_s",
    "longest_silence_s",
    "upstream_whole_s",
    "retry_wait_s",
}


def _suite(tmp: Path, extra: str = "", **scenario: str) -> Path:
    """One scenario on the Anthropic text recording, with ``scenario`` keys (TOML values)."""
    keys = "".join(f"{k} = {v}\n" for k, v in scenario.items())
    path = tmp / "suite.toml"
    path.write_text(
        f'name = "timing"\n{extra}\n[[scenario]]\nname = "s"\nrecording = "{TEXT}"\n{keys}',
        encoding="utf-8",
    )
    return path


def _run(tmp: Path, bugs: set[str], suite: Path) -> ScenarioResult:
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", bugs).running() as gw:
        result = run_suite(load_suite(str(suite)), gw.url, str(tmp / "out"), upstream_port=port)
    [s] = result.scenarios
    return s


def _timing_codes(s: ScenarioResult) -> dict[str, str]:
    return {f.code: f.severity for f in s.findings if f.source == "timing"}


def test_a_faithful_gateway_gets_no_timing_finding(tmp_path: Path) -> None:
    s = _run(tmp_path, set(), _suite(tmp_path, spread="2.5"))
    assert s.verdict == "pass", s.findings
    assert _timing_codes(s) == {}
    t = s.to_dict()["timing"]
    assert set(t) == KEYS and t.pop("upstream_whole_s") is None  # the upstream streamed
    assert t.pop("retry_wait_s") is None  # nothing retried
    assert all(isinstance(v, float) for v in t.values()), t
    assert t["upstream_first_token_s"] > 0.3  # the recording's own first-token time
    assert abs(t["added_first_token_s"]) < 0.5
    assert t["added_delay_max_s"] < 0.5


def test_a_buffering_gateway_is_not_streamed(tmp_path: Path) -> None:
    s = _run(tmp_path, {"buffer"}, _suite(tmp_path, spread="2.5"))
    assert s.verdict == "fail"
    codes = _timing_codes(s)
    assert codes["not-streamed"] == "error", s.findings
    assert "buffered" not in codes  # one fault, one finding
    t = s.to_dict()["timing"]
    assert t["added_delay_max_s"] > 1.5
    assert t["added_first_token_s"] > 1.5
    [f] = [f for f in s.findings if f.code == "not-streamed"]
    assert f.frame is not None and f.offset is not None and f.excerpt


def test_a_gateway_that_holds_the_first_event(tmp_path: Path) -> None:
    s = _run(tmp_path, {"hold-first"}, _suite(tmp_path, quiet='"2@1"'))
    codes = _timing_codes(s)
    assert codes.get("first-event") == "error", s.findings
    assert "first-token" not in codes
    assert s.to_dict()["timing"]["added_first_event_s"] > 1.5


def test_dropped_keepalives_fail_and_a_quiet_upstream_warns(tmp_path: Path) -> None:
    gemini = recordings_dir() / "gemini" / "text-gemini.jsonl"
    pinging = _suite(tmp_path, quiet='"6@3"')
    (tmp_path / "g").mkdir()
    quiet = _suite(tmp_path / "g", quiet='"6@2"')  # Gemini sends nothing while it thinks
    quiet.write_text(quiet.read_text().replace(str(TEXT), str(gemini)), encoding="utf-8")
    jobs = {
        "faithful": (set(), pinging),
        "dropping": ({"drop-keepalive"}, pinging),
        "quiet": ({"drop-keepalive"}, quiet),
        "kept": (set(), quiet),
    }
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:  # each waits out its 6 s at once
        futures = {k: pool.submit(_run, tmp_path / k, bugs, p) for k, (bugs, p) in jobs.items()}
        got = {k: f.result() for k, f in futures.items()}
    assert _timing_codes(got["faithful"]) == {}, got["faithful"].findings
    assert got["faithful"].to_dict()["timing"]["longest_silence_s"] < 2
    assert _timing_codes(got["dropping"]) == {"keepalives-dropped": "error"}, got["dropping"]
    assert got["dropping"].to_dict()["timing"]["longest_silence_s"] > 5
    # a gateway that sends no keepalive of its own leaves both sides quiet: a warning; the
    # faithful one sends some
    assert _timing_codes(got["quiet"]) == {"silence": "warning"}, got["quiet"].findings
    assert got["quiet"].verdict == "pass"
    assert _timing_codes(got["kept"]) == {}, got["kept"].findings
    assert got["kept"].to_dict()["timing"]["longest_silence_s"] < 5


def test_budgets_from_the_suite_and_the_command_line(tmp_path: Path) -> None:
    lenient = _suite(tmp_path, "[timing]\nfirst-event = 5\n", quiet='"2@1"')
    s = _run(tmp_path, {"hold-first"}, lenient)
    assert "first-event" not in _timing_codes(s), s.findings
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", {"hold-first"}).running() as gw:
        args = ["gate", "--gateway", gw.url, "--upstream-port", str(port), "--format", "json"]
        run = run_cli(*args, "--suite", str(_suite(tmp_path, quiet='"2@1"')), cwd=tmp_path)
        assert run.code == 1, run.both
        doc = json.loads(run.out)
        [sc] = doc["scenarios"]
        assert "timing:first-event" in {f["key"] for f in sc["findings"]}
        assert sc["timing"]["added_first_event_s"] > 1.5
        run = run_cli(
            *args, "--suite", str(_suite(tmp_path, quiet='"2@1"')), "--budget", "first-event=5",
            "--out", "out2", cwd=tmp_path,
        )  # fmt: skip
        assert run.code == 0, run.both


def test_a_baseline_accepts_a_timing_finding(tmp_path: Path) -> None:
    port = free_port()
    suite = str(_suite(tmp_path, spread="2.5"))
    with Gateway(f"http://127.0.0.1:{port}", {"buffer"}).running() as gw:
        args = ["gate", "--gateway", gw.url, "--upstream-port", str(port), "--suite", suite]
        run = run_cli(*args, "--write-baseline", "known.json", cwd=tmp_path)
        assert run.code == 1
        assert "timing:not-streamed" in (tmp_path / "known.json").read_text()
        run = run_cli(*args, "--baseline", "known.json", "--out", "again", cwd=tmp_path)
        assert run.code == 0, run.both
        assert "KNOWN" in run.err


@pytest.mark.parametrize(
    "item", ["first-token", "first-token=", "first-token=0", "latency=1", "delay=x", "silence=-1"]
)
def test_a_bad_budget_is_named(item: str) -> None:
    with pytest.raises(UsageError, match="NAME=SECONDS"):
        parse_budget(item)


def test_budgets_layer() -> None:
    b = Budgets().over({"first-token": 1.5}).over({"silence": 30})
    assert (b.first_token, b.first_event, b.delay, b.silence) == (1.5, 0.5, 1.0, 30.0)


def test_a_gemini_array_upstream_is_timed_element_by_element() -> None:
    """Gemini asked without ``alt=sse`` (as Portkey asks) answers a streamed JSON array: its
    elements are read as the events they are, each at the time its write left."""
    from sseconform.gate.content import content_of
    from sseconform.gate.timing import Clock, array_as_sse
    from sseconform.replay.plan import json_array, load

    rec = load(str(recordings_dir() / "gemini" / "text-gemini.jsonl"))
    shape = json_array(rec)
    clock = Clock(list(zip(shape.times, shape.starts, strict=True)))
    payload, timed = array_as_sse(shape.payload, clock)
    native, seen = content_of([rec.body], "gemini"), content_of([payload], "gemini")
    assert seen.length((0, "text")) == native.length((0, "text")) > 100
    assert seen.frames == len(shape.ends)
    # each element's event is at its element's time (the "[" or separator leads its write)
    assert [timed.at(s) for s in seen.starts] == shape.times[: len(seen.starts)]
    assert max(timed.times) == shape.times[-1]  # alive until the closing bracket
    # a cut array: the whole elements before the cut, nothing invented
    cut, _ = array_as_sse(shape.payload[: shape.ends[2] + 5], clock)
    assert content_of([cut], "gemini").frames == 3
    assert array_as_sse(b"", Clock([]))[0] == b""


def test_a_timing_error_is_confirmed_by_a_second_run(tmp_path: Path) -> None:
    """A gateway slow on its first request only (a cold start): the first run's first-token
    finding is not confirmed when the scenario runs again, so it is not reported
    (a note says so); without confirmation it fails. A gateway late every time still
    fails after the second run."""
    suite = str(_suite(tmp_path))
    port = free_port()
    args = ["gate", "--upstream-port", str(port), "--suite", suite, "--format", "json"]
    with Gateway(f"http://127.0.0.1:{port}", {"cold-start"}).running() as gw:
        run = run_cli(*args, "--gateway", gw.url, "--out", "a", cwd=tmp_path)
    assert run.code == 0, run.both
    [sc] = json.loads(run.out)["scenarios"]
    assert sc["verdict"] == "pass" and "timing:first-token not confirmed" in sc["note"]
    assert "again: timing re-measured" in run.err
    with Gateway(f"http://127.0.0.1:{port}", {"cold-start"}).running() as gw:
        run = run_cli(*args, "--gateway", gw.url, "--no-confirm-timing", "--out", "b",
                      cwd=tmp_path)  # fmt: skip
    assert run.code == 1, run.both
    [sc] = json.loads(run.out)["scenarios"]
    assert "timing:first-token" in {f["key"] for f in sc["findings"]}
    assert sc["timing"]["added_first_token_s"] > 0.9  # the second before the upstream call
    with Gateway(f"http://127.0.0.1:{port}", {"buffer"}).running() as gw:
        (tmp_path / "slow").mkdir()
        spread = str(_suite(tmp_path / "slow", spread="2.5"))
        run = run_cli("gate", "--upstream-port", str(port), "--suite", spread, "--format",
                      "json", "--gateway", gw.url, "--out", "c", cwd=tmp_path)  # fmt: skip
    assert run.code == 1
    [sc] = json.loads(run.out)["scenarios"]
    assert "timing:not-streamed" in {f["key"] for f in sc["findings"]}


def test_confirmed_keeps_what_both_runs_found() -> None:
    def result(*codes: str) -> ScenarioResult:
        r = ScenarioResult("s", "content", 200, "s.jsonl", 1, 1.0)
        r.findings = [Finding(c, c, source="timing") for c in codes] + [
            Finding("E002", "x", Severity.WARNING)
        ]
        return r

    got = confirmed(result("first-token", "buffered"), result("buffered", "first-event"))
    assert [f.code for f in got.findings if f.source == "timing"] == ["buffered"]
    assert any(f.code == "E002" for f in got.findings)
    assert got.note == "timing:first-token not confirmed by a later run: not reported"


def test_a_confirming_run_that_failed_otherwise_replaces_nothing() -> None:
    """The gateway died before the confirmation: the first run's findings, recording and
    upstream requests stay the scenario's, its timing error unconfirmed, and the note says
    what the confirming run met."""
    first = ScenarioResult("s", "content", 200, "s.jsonl", 1, 1.0)
    first.findings = [Finding("first-token", "late", source="timing"),
                      Finding("H002", "dup"), Finding("F001", "no finish")]  # fmt: skip
    second = ScenarioResult("s", "content", None, "s.confirm1.jsonl", 0, 0.1)
    second.findings = [Finding("no-response", "refused", source="transport")]
    got = confirmed(first, second)
    assert got is first and got.recording == "s.jsonl" and got.upstream_requests == 1
    assert [f.code for f in got.findings] == ["H002", "F001"]
    assert "timing:first-token not confirmed" in got.note
    assert "the confirming run (s.confirm1.jsonl) also had" in got.note
    assert "not this scenario's result" in got.note
