"""The built-in timing scenarios, ``<dialect>/slow-stream`` (content spread over 4 s) and
``<dialect>/long-silence`` (6 s of the provider's own quiet: Anthropic's pings, nothing from
the others), through the test gateway at every endpoint, at recorded speed.

A faithful gateway passes them all with no timing finding; each timing bug fails the
scenarios it breaks, on the chat, Messages and Responses paths alike. The scenarios of one
run are in flight at once (``concurrency``): each one's wait is the upstream's recorded time.
"""

from __future__ import annotations

from fnmatch import fnmatch
from pathlib import Path

import pytest

from sseconform.gate.result import ScenarioResult
from sseconform.gate.runner import run_suite
from sseconform.gate.suite import LONG_SILENCE, SLOW_STREAM, builtin_suite, for_endpoint
from tests.gate.gateway import Gateway
from tests.gate.test_gate import free_port
from tests.gate.test_timing import KEYS

DIALECTS = ("anthropic", "gemini", "responses", "openai")
TIMED = ("slow-stream", "long-silence")


def _run(tmp: Path, bugs: set[str], endpoint: str) -> dict[str, ScenarioResult]:
    suite = for_endpoint(builtin_suite("all"), endpoint)
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", bugs).running() as gw:
        result = run_suite(
            suite, gw.url, str(tmp / "out"), upstream_port=port, concurrency=8,
            select=lambda sc: any(fnmatch(sc.name, f"*/{x}") for x in TIMED),
        )  # fmt: skip
    prefix = "" if endpoint == "chat" else f"{endpoint}/"
    # keyed by "dialect/label", whatever the endpoint
    return {s.name.removeprefix(prefix): s for s in result.scenarios}


def _timing(s: ScenarioResult) -> dict[str, str]:
    return {f.code: f.severity for f in s.findings if f.source == "timing"}


def test_the_builtin_suites_have_both_for_every_dialect() -> None:
    by = {sc.name: sc for sc in builtin_suite("all").scenarios}
    for d in DIALECTS:
        slow, silent = by[f"{d}/slow-stream"], by[f"{d}/long-silence"]
        assert slow.spread == SLOW_STREAM >= 4
        assert silent.quiet is not None and silent.quiet[0] == LONG_SILENCE > 5  # the budget
        assert silent.quiet[1] >= 1  # after the stream began, before its answer


@pytest.mark.parametrize("endpoint", ["chat", "messages", "responses"])
def test_a_faithful_gateway_passes_them_with_no_timing_finding(
    tmp_path: Path, endpoint: str
) -> None:
    got = _run(tmp_path, set(), endpoint)
    assert len(got) == 8
    for name, s in got.items():
        assert s.verdict == "pass", (name, s.findings)
        assert _timing(s) == {}, (name, s.findings)
        t = s.to_dict()["timing"]
        assert set(t) == KEYS and all(isinstance(v, float) for v in t.values()), (name, t)
        assert t["longest_silence_s"] < 5, (name, t)
    # the upstream's own schedule is in the figures: content late, spread, or after quiet
    for d in DIALECTS:
        assert got[f"{d}/long-silence"].to_dict()["timing"]["added_first_event_s"] < 0.5


def test_a_buffering_gateway_fails_every_slow_stream(tmp_path: Path) -> None:
    got = _run(tmp_path, {"buffer"}, "messages")
    for d in DIALECTS:
        s = got[f"{d}/slow-stream"]
        assert s.verdict == "fail" and _timing(s).get("not-streamed") == "error", s.findings
        t = s.to_dict()["timing"]
        assert t["added_delay_max_s"] > 2, t  # the first piece waited for the last
    assert _timing(got["anthropic/long-silence"]).get("keepalives-dropped") == "error"


def test_a_gateway_holding_the_first_event(tmp_path: Path) -> None:
    got = _run(tmp_path, {"hold-first"}, "responses")
    for d in ("anthropic", "responses", "openai"):  # a first event before any content
        s = got[f"{d}/long-silence"]
        assert _timing(s).get("first-event") == "error", (d, s.findings)
        assert s.to_dict()["timing"]["added_first_event_s"] > LONG_SILENCE - 1
    # Gemini's first event carries content: nothing to hold back, nothing to find
    assert "first-event" not in _timing(got["gemini/slow-stream"])


def test_a_gateway_dropping_keepalives(tmp_path: Path) -> None:
    got = _run(tmp_path, {"drop-keepalive"}, "chat")
    assert _timing(got["anthropic/long-silence"]) == {"keepalives-dropped": "error"}
    assert got["anthropic/long-silence"].verdict == "fail"
    for d in ("gemini", "responses", "openai"):  # they send nothing: both sides silent
        s = got[f"{d}/long-silence"]
        assert _timing(s) == {"silence": "warning"} and s.verdict == "pass", (d, s.findings)
        assert s.to_dict()["timing"]["longest_silence_s"] > 5
    for d in DIALECTS:
        assert _timing(got[f"{d}/slow-stream"]) == {}
