"""The built-in timing scenarios, ``<dialect>/slow-stream`` (content spread over 4 s) and
``<dialect>/long-silence`` (6 s of the provider's own quiet: Anthropic's pings, nothing from
the others), through the test gateway at every endpoint, at recorded speed.

A faithful gateway passes them all with no timing finding; each timing bug fails the
scenarios it breaks, on the chat, Messages and Responses paths alike. The scenarios of one
run are in flight at once (``concurrency``): each one's wait is the upstream's recorded time.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from fnmatch import fnmatch
from pathlib import Path

from sseconform.demo.gateway import Gateway
from sseconform.gate.aimed import for_endpoint
from sseconform.gate.result import ScenarioResult
from sseconform.gate.runner import run_suite
from sseconform.gate.suite import LONG_SILENCE, SLOW_STREAM, builtin_suite
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


def _runs(tmp: Path, jobs: dict[str, tuple[set[str], str]]) -> dict[str, dict[str, ScenarioResult]]:
    """Several gateways at once (each with its own upstream): their scenarios mostly wait on
    the upstream's recorded schedule, so they take the time of one."""
    with ThreadPoolExecutor(max_workers=len(jobs)) as pool:
        futures = {k: pool.submit(_run, tmp / k, bugs, ep) for k, (bugs, ep) in jobs.items()}
        return {k: f.result() for k, f in futures.items()}


def test_a_faithful_gateway_passes_them_with_no_timing_finding(tmp_path: Path) -> None:
    runs = _runs(tmp_path, {e: (set(), e) for e in ("chat", "messages", "responses")})
    for endpoint, got in runs.items():
        assert len(got) == 8, endpoint
        for name, s in got.items():
            where = (endpoint, name, s.findings)
            assert s.verdict == "pass" and _timing(s) == {}, where
            t = s.to_dict()["timing"]
            assert set(t) == KEYS and t.pop("upstream_whole_s") is None, (where, t)  # streamed
            assert t.pop("retry_wait_s") is None, (where, t)  # nothing retried
            assert all(isinstance(v, float) for v in t.values()), (where, t)
            assert t["longest_silence_s"] < 5, (where, t)
        # the upstream's own schedule is in the figures: content late, spread, or after quiet
        for d in DIALECTS:
            assert got[f"{d}/long-silence"].to_dict()["timing"]["added_first_event_s"] < 0.5


def test_each_timing_bug_fails_the_scenarios_it_breaks(tmp_path: Path) -> None:
    """Three gateways at once, each with one timing bug, each on another endpoint."""
    runs = _runs(
        tmp_path,
        {
            "buffer": ({"buffer"}, "messages"),
            "hold-first": ({"hold-first"}, "responses"),
            "drop-keepalive": ({"drop-keepalive"}, "chat"),
        },
    )
    # buffering: every slow stream fails not-streamed, the first piece waited for the last
    got = runs["buffer"]
    for d in DIALECTS:
        s = got[f"{d}/slow-stream"]
        assert s.verdict == "fail" and _timing(s).get("not-streamed") == "error", s.findings
        t = s.to_dict()["timing"]
        assert t["added_delay_max_s"] > 2, t
    assert _timing(got["anthropic/long-silence"]).get("keepalives-dropped") == "error"
    # holding the first event: wherever it comes before any content
    got = runs["hold-first"]
    for d in ("anthropic", "responses", "openai"):
        s = got[f"{d}/long-silence"]
        assert _timing(s).get("first-event") == "error", (d, s.findings)
        assert s.to_dict()["timing"]["added_first_event_s"] > LONG_SILENCE - 1
    # Gemini's first event carries content: nothing to hold back, nothing to find
    assert "first-event" not in _timing(got["gemini/slow-stream"])
    # dropping keepalives: an error where the upstream pinged, a warning where it was silent
    got = runs["drop-keepalive"]
    assert _timing(got["anthropic/long-silence"]) == {"keepalives-dropped": "error"}
    assert got["anthropic/long-silence"].verdict == "fail"
    for d in ("gemini", "responses", "openai"):  # they send nothing: both sides silent
        s = got[f"{d}/long-silence"]
        assert _timing(s) == {"silence": "warning"} and s.verdict == "pass", (d, s.findings)
        assert s.to_dict()["timing"]["longest_silence_s"] > 5
    for d in DIALECTS:
        assert _timing(got[f"{d}/slow-stream"]) == {}
