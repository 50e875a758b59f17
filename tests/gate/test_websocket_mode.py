"""``gate --transport websocket`` through the demo gateway's WebSocket mode, in the test
process (both on 127.0.0.1): through the faithful bridge every scenario passes; each bug
fails exactly the scenarios it breaks, naming its rule; a refused upgrade is graded as the
probe grades it."""

from __future__ import annotations

from pathlib import Path

import pytest

from sseconform.demo.gateway import Gateway
from sseconform.gate.options import GateOptions, run_gate
from sseconform.gate.result import ScenarioResult, SuiteResult
from tests.gate.real import free_port
from tests.gate.relay import relay

#: bug, --only globs, --speed, --deadline, and the scenarios that must fail with a finding
#: of one of these rules (every other scenario run must pass)
CASES = [
    (
        "faithful",
        ["responses/anthropic/*", "responses/responses/*", "*/agent-loop"],
        0.0,
        None,
        {},
    ),
    (
        "ws-forget",
        ["*/agent-loop", "*/previous-response", "responses/openai/text"],
        0.0,
        None,
        {
            name: {"turn2:history:lost", "turn2:history:refused"}
            for name in (
                "responses/anthropic/agent-loop",
                "responses/gemini/agent-loop",
                "responses/openai/agent-loop",
                "responses/responses/agent-loop",
                "responses/responses/previous-response",
            )
        },
    ),
    (
        "ws-sse-framing",
        ["responses/openai/text", "responses/openai/tool-call"],
        0.0,
        3.0,
        {
            "responses/openai/text": {"S080"},
            "responses/openai/tool-call": {"S080"},
        },
    ),
    (
        "ws-bare-close",
        ["responses/openai/*-mid-stream", "responses/openai/rate-limited", "responses/openai/text"],
        0.0,
        None,
        {
            # the upstream's error event or its 429 turned into a close (the upstream's own
            # drop, closed so, is a mirrored drop: a warning, as over SSE)
            "responses/openai/error-mid-stream": {"S082"},
            "responses/openai/rate-limited": {"S082"},
        },
    ),
    (  # a quiet upstream: the bridge's keepalive (a WebSocket Ping) keeps the turn alive
        "faithful-quiet",
        ["responses/anthropic/long-silence"],
        1.0,
        None,
        {},
    ),
    (
        "drop-keepalive",
        ["responses/anthropic/long-silence"],
        1.0,
        None,
        {"responses/anthropic/long-silence": {"timing:keepalives-dropped"}},
    ),
    (
        "buffer",
        ["responses/anthropic/slow-stream", "responses/openai/slow-stream"],
        1.0,
        None,
        {
            "responses/anthropic/slow-stream": {"timing:not-streamed", "timing:first-token"},
            "responses/openai/slow-stream": {"timing:not-streamed", "timing:first-token"},
        },
    ),
]


def _gate(
    tmp: Path, bug: str, only: list[str], speed: float, deadline: float | None
) -> list[SuiteResult]:
    upstream = free_port()
    bugs = set() if bug.startswith("faithful") else {bug}
    gw = Gateway(f"http://127.0.0.1:{upstream}", bugs, port=free_port())
    options = GateOptions(
        suites=["builtin:all"], only=only, upstream_port=upstream, out=str(tmp / "out"),
        speed=speed, deadline=deadline, transport="websocket",
    )  # fmt: skip
    with gw.running():
        options.gateway = gw.url
        return run_gate(options)


@pytest.mark.parametrize(
    ("bug", "only", "speed", "deadline", "failing"), CASES, ids=[c[0] for c in CASES]
)
def test_each_bug_fails_the_scenarios_it_breaks(
    tmp_path: Path,
    bug: str,
    only: list[str],
    speed: float,
    deadline: float | None,
    failing: dict[str, set[str]],
) -> None:
    (suite,) = _gate(tmp_path, bug, only, speed, deadline)
    probe, *runs = suite.scenarios
    assert probe.name == "responses/websocket-upgrade" and probe.passed, probe.note
    by_name: dict[str, ScenarioResult] = {r.name: r for r in runs if r.applicable}
    assert set(failing) <= set(by_name), sorted(by_name)
    for name, r in by_name.items():
        keys = {f.key for f in r.findings if f.severity.value == "error"}
        if name in failing:
            assert r.failed, (name, r.note)
            assert any(k.startswith(rule) for k in keys for rule in failing[name]), (name, keys)
        else:
            assert r.passed, (name, sorted(keys))
        assert r.recording.endswith(".jsonl") and Path(r.recording).exists()
        assert Path(r.recording.removesuffix(".jsonl") + ".as-sse.jsonl").exists()


def test_a_byte_for_byte_pass_through_passes(tmp_path: Path) -> None:
    """A gateway that pipes the WebSocket to a Responses upstream untouched (opening its
    own to the upstream when the client's arrives, so the upgrade is asked with the replay
    upstream listening): every Responses scenario passes, the upstream's drop mirrored (a
    warning, as over SSE)."""
    upstream = free_port()
    options = GateOptions(
        suites=["builtin:all"], only=["responses/responses/*"], upstream_port=upstream,
        out=str(tmp_path / "out"), speed=0.0, transport="websocket",
    )  # fmt: skip
    with relay(free_port(), upstream) as url:
        options.gateway = url
        (suite,) = run_gate(options)
    probe, *runs = suite.scenarios
    assert probe.passed and "accepted" in probe.note, probe.note
    assert len(runs) == 18 and all(r.passed for r in runs), [
        (r.name, [f.key for f in r.findings]) for r in runs if not r.passed
    ]
    dropped = next(r for r in runs if r.name.endswith("/dropped-mid-stream"))
    assert {f.key for f in dropped.findings} >= {"S082", "transport:aborted"}


def test_findings_are_located_by_message(tmp_path: Path) -> None:
    (suite,) = _gate(tmp_path, "ws-bare-close", ["responses/openai/error-mid-stream"], 0.0, None)
    (run,) = suite.scenarios[1:]
    bare = [f for f in run.findings if f.key == "S082"]
    assert bare and "Close 1011" in bare[0].message and bare[0].line > 0
    grammar = [
        f for f in run.findings
        if f.source == "check" and f.offset is not None and f.invariant != "websocket"
    ]  # fmt: skip
    assert all(f.message.startswith("message ") for f in grammar), grammar


def test_a_refused_upgrade_is_graded_as_before(tmp_path: Path) -> None:
    (suite,) = _gate(tmp_path, "ws-refuse:405", ["responses/openai/text"], 0.0, None)
    (probe,) = suite.scenarios
    assert [f.key for f in probe.findings] == ["transport:websocket-refused"]
    assert "405" in probe.findings[0].message
