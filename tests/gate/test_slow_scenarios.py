"""The bugs gateways ship that only time shows: a gateway that assembles a call's arguments
(or the thinking) before it forwards them sends them in one burst at the end. The built-in
``slow-call`` and ``slow-reasoning`` scenarios spread the upstream's argument and thinking
deltas over 4 s, so such a gateway fails on every endpoint whose grammar can stream them
(Gemini's sends a call whole), and a faithful one passes (real time, speed 1: what a timing
verdict is graded at)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sseconform.demo.gateway import Gateway
from sseconform.gate.aimed import for_endpoint
from sseconform.gate.runner import run_suite
from sseconform.gate.suite import builtin_suite
from tests.gate.test_gate import free_port

ENDPOINTS = ("chat", "messages", "responses", "gemini")


def _run(tmp_path: Path, endpoint: str, bugs: set[str]) -> dict[str, Any]:
    """The anthropic suite's two slow scenarios through the test gateway's ``endpoint``."""
    suite = for_endpoint(builtin_suite("anthropic"), endpoint)
    suite.scenarios = [sc for sc in suite.scenarios
                       if sc.name.endswith(("/slow-call", "/slow-reasoning"))]  # fmt: skip
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", bugs).running() as gw:
        # a deliberate 4 s burst needs no confirming run; a faithful gateway gets them, as
        # in a real gate run (a timing finding on it would be a false alarm)
        result = run_suite(suite, gw.url, str(tmp_path), upstream_port=port, concurrency=2,
                           confirm_timing=not bugs)  # fmt: skip
    return {s.name.rsplit("/", 1)[-1]: s for s in result.scenarios}


def _timing(s: Any) -> set[str]:
    return {f.key for f in s.findings if f.source == "timing" and f.severity == "error"}


@pytest.mark.parametrize("endpoint", ENDPOINTS[:3])
def test_arguments_held_to_the_end_fail_slow_call(tmp_path: Path, endpoint: str) -> None:
    got = _run(tmp_path, endpoint, {"hold-args"})
    assert got["slow-call"].verdict == "fail"
    assert _timing(got["slow-call"]) & {"timing:not-streamed", "timing:first-token"}, [
        (f.key, f.message) for f in got["slow-call"].findings
    ]
    assert got["slow-reasoning"].verdict == "pass", got["slow-reasoning"].findings


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_thinking_held_to_the_end_fails_slow_reasoning(tmp_path: Path, endpoint: str) -> None:
    got = _run(tmp_path, endpoint, {"hold-reasoning"})
    assert got["slow-reasoning"].verdict == "fail"
    assert _timing(got["slow-reasoning"]), [
        (f.key, f.message) for f in got["slow-reasoning"].findings
    ]
    want = "not-applicable" if endpoint == "gemini" else "pass"
    assert got["slow-call"].verdict == want, got["slow-call"].findings


def test_gemini_s_grammar_sends_a_call_whole(tmp_path: Path) -> None:
    """Gemini's ``functionCall`` part holds the whole call: on the gemini endpoint nothing
    of the arguments can stream, so slow-call is not applicable there, with why."""
    got = _run(tmp_path, "gemini", set())
    assert got["slow-call"].verdict == "not-applicable"
    assert "sends a call's arguments whole" in got["slow-call"].note
    assert got["slow-reasoning"].verdict == "pass", got["slow-reasoning"].findings


def test_a_faithful_gateway_passes_both_in_real_time(tmp_path: Path) -> None:
    got = _run(tmp_path, "chat", set())
    for name, s in got.items():
        assert s.verdict == "pass", (name, [(f.key, f.message) for f in s.findings])
