"""The default suites through a real gateway: LLM Proxy Server (PyPI ``llm-proxy-server``), on
loopback.

`.ci/run` installs ``llm-proxy-server[anthropic,google]`` at the version
``tests/gate/lps/install.sh`` pins, into a venv of its own, and points ``SSECONFORM_LPS`` at
that venv; without it this test skips (it fails instead when ``SSECONFORM_REQUIRE_LPS=1``, as
in CI). The proxy reads its address and everything else from one config file: the one
``sseconform gate --gateway-profile llm-proxy-server --print-gateway-config`` prints, with its
port moved to a free one (the proxy has no command-line option for it) so that parallel runs
cannot collide. Nothing else is written by hand: the run is the one a user makes.

The proxy serves ``/v1/chat/completions`` alone. The test asserts that the run grades every
chat scenario of every dialect (the proxy answers each one; the scenarios it cannot even send
upstream are the known ones below), that the other two endpoints are not applicable as the
profile says, that every located finding points at real bytes, and that the scenarios fail
only for the deviations in ``lps-known.json`` (each note says what the proxy does, checked
against the recorded bytes), each of which still happens. The scorecard goes to
``$SSECONFORM_LPS_SCORECARD``.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from sseconform.gate.suite import builtin_suite
from tests.cli.helpers import run_cli
from tests.conftest import ROOT
from tests.gate import real

HERE = ROOT / "tests" / "gate"
PROFILE = "llm-proxy-server"
BASELINE = HERE / "lps-known.json"
VERSION = real.pinned(HERE / "lps" / "install.sh", "LPS_VERSION")
DIALECTS = ("anthropic", "gemini", "responses", "openai")
#: The scenarios whose request the proxy cannot send upstream at all: it answers HTTP 200 and
#: an error chunk of its own (the reasons are in lps-known.json's notes). Asked as OpenCode
#: and Qwen Code ask (max_tokens, stream_options, tool_choice "auto" with tools), only the
#: OpenAI route's scenarios without tools get through.
NEVER_SENT = {
    s.name
    for d in ("anthropic", "gemini", "responses")  # stream_options; max_tokens; max_tokens
    for s in builtin_suite(d).scenarios
    if not s.name.endswith("/previous-response")
} | {
    "openai/tool-call",  # tool_choice "auto" refused by its own request validation
    "openai/parallel-calls",
    "openai/text-then-call",
    "openai/slow-call",
    "openai/agent-loop",
}


def _proxy() -> Path | None:
    where = os.environ.get("SSECONFORM_LPS")
    exe = Path(where, "bin", "llm-proxy-server") if where else None
    return exe if exe is not None and os.access(exe, os.X_OK) else None


class LPS:
    """A running proxy, and the replay upstream port its config names."""

    def __init__(self, url: str, upstream_port: int) -> None:
        self.url = url
        self.upstream_port = upstream_port


def _config(upstream: int, port: int) -> str:
    """The config the profile prints (what a user runs), its port moved to ``port``."""
    printed = real.printed_config(PROFILE, upstream)
    config = tomllib.loads(printed)
    assert config["host"] == "127.0.0.1"
    assert all(
        c["api_base"].startswith(f"http://127.0.0.1:{upstream}")
        for c in config["connections"].values()
    )
    line = f"\nport = {config['port']}\n"
    assert printed.count(line) == 1, printed
    return printed.replace(line, f"\nport = {port}\n")


@pytest.fixture(scope="module")
def lps(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LPS]:
    exe = real.need(_proxy(), "SSECONFORM_REQUIRE_LPS", "llm-proxy-server")
    tmp = tmp_path_factory.mktemp("lps")
    upstream, port = real.free_port(), real.free_port()
    (tmp / "config.toml").write_text(_config(upstream, port))
    # --env "": no .env file read; USE_DOT_ENV: nor by ai-microcore, which looks for one too
    argv = [str(exe), "--config", str(tmp / "config.toml"), "--env", ""]
    env = {"USE_DOT_ENV": "false"}
    with real.running("llm-proxy-server", argv, tmp, "/openapi.json", port, 120, env) as url:
        _warm_up(url, upstream, tmp)
        yield LPS(url, upstream)


def _warm_up(url: str, upstream: int, tmp: Path) -> None:
    """One text scenario per dialect before the graded run, verdicts ignored: a freshly
    started proxy spends about 2.4 s inside its first Responses stream (openai-python loads
    its Responses module on first use; 0.03 s once warm) and about 0.2 s more on its first
    Gemini one (measured by hand on 3.3.2), which would read as added first-token latency;
    the suites grade the proxy as it serves in steady state."""
    run = run_cli(
        "gate", "--gateway", url, "--gateway-profile", PROFILE, "--upstream-port",
        str(upstream), "--only", "*/text", "--speed", "0", "--no-confirm-timing",
        "--out", str(tmp / "warm-up"), "--format", "json", "-o", str(tmp / "warm-up.json"),
        cwd=ROOT, timeout=300,
    )  # fmt: skip
    assert run.code in (0, 1), run.both


def test_default_suites_through_llm_proxy_server(lps: LPS, tmp_path: Path) -> None:
    """Every built-in scenario through /v1/chat/completions, the endpoint the profile grades
    by default."""
    everything = {s.name for d in DIALECTS for s in builtin_suite(d).scenarios}
    names, only = real.chosen(everything, PROFILE, VERSION)
    data, printed = real.gate(
        tmp_path,
        "--gateway", lps.url,
        "--gateway-profile", PROFILE,
        "--upstream-port", str(lps.upstream_port),
        "--baseline", str(BASELINE),
        *only,
    )  # fmt: skip
    assert data["profile"] == "llm-proxy-server"
    scenarios = {s["name"]: s for s in data["scenarios"]}
    assert set(scenarios) == names
    assert {s["endpoint"] for s in scenarios.values()} == {"chat"}
    for name, s in scenarios.items():  # every dialect is routed, and the proxy answers each
        if name.endswith("/previous-response"):
            assert s["verdict"] == "not-applicable", (name, s)  # a stored response: Responses'
            continue
        assert s["verdict"] != "not-applicable", (name, s)
        assert s["status"] is not None, (name, s)
        sent = s["upstream_requests"] > 0
        assert sent != (name in NEVER_SENT), (name, s["upstream_log"])
    real.assert_located(scenarios)
    size = (tmp_path / "report.html").stat().st_size
    what = (
        f"llm-proxy-server {VERSION} (chat endpoint, "
        f"{real.extent(len(names), len(everything))}, baseline tests/gate/{BASELINE.name}; "
        f"HTML report {size / 1024:.0f} KiB)"
    )
    real.write_scorecard("SSECONFORM_LPS_SCORECARD", real.scorecard(scenarios, what))
    real.assert_only_known(scenarios)
    assert data["passed"], printed


def test_other_endpoints_are_not_applicable(lps: LPS, tmp_path: Path) -> None:
    """/v1/messages and /v1/responses: the profile marks them unserved, so each of their
    scenarios is not applicable, with the profile's reason, and nothing is sent."""
    data, printed = real.gate(
        tmp_path,
        "--gateway", lps.url,
        "--gateway-profile", PROFILE,
        "--upstream-port", str(lps.upstream_port),
        "--endpoint", "messages",
        "--endpoint", "responses",
    )  # fmt: skip
    scenarios = data["scenarios"]
    names = {
        f"{e}/{s.name}" for e in ("messages", "responses") for d in DIALECTS
        for s in builtin_suite(d).scenarios
    }  # fmt: skip
    assert {s["name"] for s in scenarios} == names
    for s in scenarios:
        assert s["verdict"] == "not-applicable", s
        assert s["status"] is None and s["upstream_requests"] == 0, s
        assert "/v1/chat/completions only" in s["note"], s
    assert not data["passed"] and "nothing was tested" in printed  # exit 1: nothing graded


def test_llm_proxy_servers_answer_to_the_websocket_upgrade(lps: LPS) -> None:
    """Codex CLI's upgrade on /v1/responses (``supports_websockets = true``; the proxy serves
    no Responses endpoint): 403, Starlette's answer to a WebSocket on no route; Codex
    retries 5 times before it falls back, about 6.2 s a session (a warning)."""
    answer = real.upgrade_answer(lps.url, "llm-proxy-server", upstream=lps.upstream_port)
    assert answer.label == "refused-403", answer
