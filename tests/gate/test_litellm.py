"""The default suites through a real gateway: LiteLLM's proxy, from PyPI, on loopback.

`.ci/run` installs ``litellm[proxy]`` (a pinned version) into its own venv and points
``SSECONFORM_LITELLM`` at its ``litellm`` command; without it this test skips (it fails
instead when ``SSECONFORM_REQUIRE_LITELLM=1``, as in CI). The proxy's four providers have
their base URLs on sseconform's replay upstream, from the config that
``sseconform gate --gateway-profile litellm --print-gateway-config`` prints;
``sseconform gate --gateway-profile litellm`` runs every built-in scenario through it. What
LiteLLM gets wrong is reported, not hidden; the test asserts that:

- the run completes and grades every scenario;
- every finding that is located points at bytes really present in the recorded gateway
  stream (the start of the event it names, holding the excerpt it quotes);
- the scenarios LiteLLM handles correctly pass (no false alarm), and the others fail only for
  the deviations in ``litellm-known.json`` (a gate baseline, each entry's note says what it
  is, checked against the recorded bytes), each of which still happens.

The scorecard is written to ``$SSECONFORM_LITELLM_SCORECARD`` when set (CI prints it).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sseconform.gate.report import endpoint_matrix
from sseconform.gate.suite import builtin_suite
from tests.cli.helpers import run_cli
from tests.conftest import ROOT
from tests.gate import real

#: The version .ci/run installs (its ``litellm_version=`` line).
_PIN = re.search(r"litellm_version=(\S+)", (ROOT / ".ci" / "run").read_text())
VERSION = _PIN[1] if _PIN else "unknown"
MASTER_KEY = "sk-sseconform-local-proxy-test"  # a key for a proxy on loopback, not a secret
DIALECTS = ("anthropic", "gemini", "responses", "openai")
BASELINE = Path(__file__).with_name("litellm-known.json")
BASELINES = {
    "chat": BASELINE,
    "messages": Path(__file__).with_name("litellm-messages-known.json"),
    "responses": Path(__file__).with_name("litellm-responses-known.json"),
    "gemini": Path(__file__).with_name("litellm-gemini-known.json"),
}
ENDPOINTS = tuple(BASELINES)
#: A drop before LiteLLM's Responses bridge sent its first Gemini chunk is an HTTP 500 (a
#: pass), after it an error chunk in the wrong shape (V014): which one, a race decides.
RACY = frozenset({"gemini/responses/dropped-mid-stream"})

ENV = {
    # no network: the cost map and the other tables from the package itself
    "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    "LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS": "True",
    "LITELLM_LOCAL_AUTOROUTER_PRESETS": "True",
    "LITELLM_LOCAL_BLOG_POSTS": "True",
    "LITELLM_LOCAL_POLICY_TEMPLATES": "True",
    "LITELLM_LOG": "CRITICAL",
}


def _config(upstream: int) -> str:
    """The config the litellm profile prints (what a user runs), with a master key added."""
    return (
        real.printed_config("litellm", upstream)
        + f"general_settings:\n  master_key: {MASTER_KEY}\n"
    )


def _litellm() -> str | None:
    found = os.environ.get("SSECONFORM_LITELLM") or shutil.which("litellm")
    return found if found and os.access(found, os.X_OK) else None


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    exe = _litellm()
    if exe is None:
        if os.environ.get("SSECONFORM_REQUIRE_LITELLM") == "1":
            pytest.fail("SSECONFORM_REQUIRE_LITELLM=1 but no litellm command was found")
        pytest.skip("LiteLLM's proxy is not installed (.ci/run installs it)")
    tmp = tmp_path_factory.mktemp("litellm")
    upstream, port = real.free_port(), real.free_port()
    (tmp / "config.yaml").write_text(_config(upstream))
    argv = [exe, "--config", str(tmp / "config.yaml"), "--host", "127.0.0.1", "--port", str(port)]
    with real.running("litellm", argv, tmp, "/health/liveliness", port, 180, ENV) as url:
        _warm_up(url, upstream, tmp)
        yield url, upstream


def _warm_up(url: str, upstream: int, tmp: Path) -> None:
    """One text scenario per dialect on each endpoint before the graded runs, verdicts
    ignored: a fresh LiteLLM process spends about 0.75 s inside its first Responses-to-chat
    stream (0.008 s once warm) and 1.76 s before it calls the upstream on its first
    /v1/messages request (0.03 s once warm; both measured by hand on 1.106.2), which would
    read as added first-token latency; the suites grade the proxy as it serves in steady
    state."""
    for endpoint in ENDPOINTS:
        run = run_cli(
            "gate", "--gateway", url, "--gateway-profile", "litellm", "--upstream-port",
            str(upstream), "--key", MASTER_KEY, "--only", "*/text", "--speed", "0",
            "--endpoint", endpoint, "--out", str(tmp / f"warm-up-{endpoint}"),
            "--format", "json", "-o", str(tmp / f"warm-up-{endpoint}.json"),
            cwd=ROOT, timeout=300,
        )  # fmt: skip
        assert run.code in (0, 1), run.both


#: Each endpoint's scenarios as its test saw them, for the scorecard with a column per endpoint.
_BY_ENDPOINT: dict[str, list[dict[str, Any]]] = {}


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_default_suites_through_litellm(
    proxy: tuple[str, int], tmp_path: Path, endpoint: str
) -> None:
    """Every built-in scenario through one of LiteLLM's endpoints: /v1/chat/completions
    (chunks), /v1/messages (Anthropic events, for Claude Code), /v1/responses (for Codex) or
    its Gemini route (Gemini's chunks, for Gemini CLI)."""
    url, upstream = proxy
    baseline = BASELINES[endpoint]
    prefix = "" if endpoint == "chat" else f"{endpoint}/"
    every = {prefix + s.name for d in DIALECTS for s in builtin_suite(d).scenarios}
    names, only = real.chosen(every, "litellm", VERSION)
    data, printed = real.gate(
        tmp_path,
        "--gateway", url,
        "--gateway-profile", "litellm",
        "--endpoint", endpoint,
        "--upstream-port", str(upstream),
        "--key", MASTER_KEY,
        "--baseline", str(baseline),
        *only,
    )  # fmt: skip
    assert data["profile"] == "litellm"
    scenarios = {s["name"]: s for s in data["scenarios"]}
    _BY_ENDPOINT[endpoint] = data["scenarios"]
    assert set(scenarios) == names
    assert {s["endpoint"] for s in scenarios.values()} == {endpoint}
    real.assert_located(scenarios)
    where = f"{endpoint} endpoint, {real.extent(len(names), len(every))}, baseline "
    where += f"tests/gate/{baseline.name}"
    size = (tmp_path / "report.html").stat().st_size
    where += f"; HTML report {size / 1024:.0f} KiB"
    card = real.scorecard(scenarios, f"LiteLLM ({where})")
    real.write_scorecard("SSECONFORM_LITELLM_SCORECARD", card)
    real.assert_only_known(scenarios, RACY)
    if endpoint in ("messages", "responses"):  # openai is served through the Responses API
        na = {n for n, s in scenarios.items() if s["verdict"] == "not-applicable"}
        stored = {n for n in names if n.endswith("/previous-response") and endpoint != "responses"}
        assert na == {n for n in names if n.startswith(f"{endpoint}/openai/")} | stored
    assert data["passed"], printed


WHOLE_BASELINE = Path(__file__).with_name("litellm-gemini-generate-known.json")


def test_gemini_non_streaming_through_litellm(proxy: tuple[str, int], tmp_path: Path) -> None:
    """LiteLLM's Gemini route asked without streaming (``:generateContent``, as google-genai's
    ``generate_content`` asks): every built-in scenario, each answer one object holding what
    the upstream streamed, each upstream failure an HTTP error."""
    url, upstream = proxy
    every = {
        f"gemini:generateContent/{s.name}" for d in DIALECTS for s in builtin_suite(d).scenarios
    }
    names, only = real.chosen(every, "litellm", VERSION)
    data, printed = real.gate(
        tmp_path,
        "--gateway", url,
        "--gateway-profile", "litellm",
        "--endpoint", "gemini",
        "--non-streaming",
        "--speed", "0",  # no timing is graded of one answer: the upstream need not pace
        "--upstream-port", str(upstream),
        "--key", MASTER_KEY,
        "--baseline", str(WHOLE_BASELINE),
        *only,
    )  # fmt: skip
    scenarios = {s["name"]: s for s in data["scenarios"]}
    assert set(scenarios) == names
    real.assert_located(scenarios)
    timed = [f for s in scenarios.values() for f in s["findings"] if f["source"] == "timing"]
    assert timed == []  # one answer has no timing to grade
    where = f"gemini endpoint, non-streaming, {real.extent(len(names), len(every))}, baseline "
    where += f"tests/gate/{WHOLE_BASELINE.name}"
    real.write_scorecard(
        "SSECONFORM_LITELLM_SCORECARD", real.scorecard(scenarios, f"LiteLLM ({where})")
    )
    real.assert_only_known(scenarios, frozenset())
    assert data["passed"], printed


def test_scorecard_has_a_column_per_endpoint() -> None:
    """After every endpoint ran: one table, scenario by endpoint (CI prints it)."""
    if set(_BY_ENDPOINT) != set(ENDPOINTS):
        pytest.skip("runs after every endpoint's test, in the same session")
    table = endpoint_matrix([s for e in ENDPOINTS for s in _BY_ENDPOINT[e]])
    head = table.splitlines()[0].split()
    assert head == ["scenario", *ENDPOINTS]
    real.write_scorecard(
        "SSECONFORM_LITELLM_SCORECARD", f"LiteLLM, every endpoint (scenario by endpoint):\n{table}"
    )


def test_load_through_litellm(proxy: tuple[str, int], tmp_path: Path) -> None:
    """``sseconform load``: a short run of every chat scenario from ten users at once
    completes, and every stream is graded (the scenarios pass one at a time, above)."""
    if importlib.util.find_spec("locust") is None:  # never imported here: it patches with gevent
        pytest.skip("Locust is not installed (sseconform[load])")
    url, upstream = proxy
    run = run_cli(
        "load", "--gateway", url, "--gateway-profile", "litellm", "--upstream-port", str(upstream),
        "--key", MASTER_KEY, "--users", "10", "--spawn-rate", "10", "--run-time", "6s",
        "--format", "json", "-o", str(tmp_path / "load.json"), cwd=tmp_path, timeout=180,
    )  # fmt: skip
    assert run.code in (0, 1), run.both[-3000:]
    report = json.loads((tmp_path / "load.json").read_text())
    assert report["requests"] >= 10, report  # each user streamed; how often: the machine's load
    assert report["requests"] == report["conforming"] + report["nonconforming"]
    assert report["upstream"]["requests"] >= report["requests"] - report["no_response"]
    card = (
        f"LiteLLM under load (10 users, 6 s): {report['requests']} streams, "
        f"{report['conforming']} conforming; TTFT p50 {report['ttft_ms']['p50']} ms, "
        f"p99 {report['ttft_ms']['p99']} ms; codes {report['codes']}"
    )
    real.write_scorecard("SSECONFORM_LITELLM_SCORECARD", card)


def test_litellms_answer_to_the_websocket_upgrade(proxy: tuple[str, int]) -> None:
    """Codex CLI's upgrade on /v1/responses (``supports_websockets = true``): LiteLLM
    1.106.2 accepts it (101, a correct accept token), so Codex stays on the socket; what it
    serves there is graded by ``test_websocket_mode_through_litellm``."""
    url, upstream = proxy
    answer = real.upgrade_answer(url, "litellm", MASTER_KEY, upstream)
    assert answer.label == "accepted", answer


WS_BASELINE = Path(__file__).with_name("litellm-responses-websocket-known.json")


def test_websocket_mode_through_litellm(proxy: tuple[str, int], tmp_path: Path) -> None:
    """LiteLLM serves the Responses API's WebSocket mode on /v1/responses: every built-in
    scenario of the Responses endpoint as a WebSocket session (a conversation's later turn on
    the same socket, only its new items and ``previous_response_id``), graded as its SSE
    answer is plus what WebSocket adds. Its known deviations are the SSE endpoint's and one
    of the socket's own: a failed turn is ``{"type": "error", "error": {...}}`` with no
    ``status`` and no ``response.failed`` (S084: Codex CLI ignores it, measured), the 429
    before the stream included."""
    url, upstream = proxy
    every = {f"responses/{s.name}" for d in DIALECTS for s in builtin_suite(d).scenarios}
    names, only = real.chosen(every, "litellm", VERSION)
    data, printed = real.gate(
        tmp_path,
        "--gateway", url,
        "--gateway-profile", "litellm",
        "--endpoint", "responses",
        "--transport", "websocket",
        "--upstream-port", str(upstream),
        "--key", MASTER_KEY,
        "--baseline", str(WS_BASELINE),
        *only,
    )  # fmt: skip
    scenarios = {s["name"]: s for s in data["scenarios"]}
    assert set(scenarios) == names | {"responses/websocket-upgrade"}
    assert scenarios["responses/websocket-upgrade"]["verdict"] == "pass"
    real.assert_located_in_sessions(scenarios)
    failed_turns = [n for n, s in scenarios.items()
                    if any(f["code"] == "S084" for f in s["findings"])]  # fmt: skip
    assert "responses/anthropic/rate-limited" in failed_turns
    where = f"responses endpoint over WebSocket, {real.extent(len(names), len(every))}, "
    where += f"baseline tests/gate/{WS_BASELINE.name}"
    real.write_scorecard(
        "SSECONFORM_LITELLM_SCORECARD", real.scorecard(scenarios, f"LiteLLM ({where})")
    )
    real.assert_only_known(scenarios, RACY)
    assert data["passed"], printed
