"""The default suites through a real gateway: claude-code-proxy, from PyPI, on loopback.

`.ci/run` installs ``claude-code-proxy`` at the version ``tests/gate/ccp/install.sh`` pins,
into a venv of its own (it pins LiteLLM 1.71.1 and a package named ``server``), and points
``SSECONFORM_CCP`` at that venv; without it this test skips (it fails instead when
``SSECONFORM_REQUIRE_CCP=1``, as in CI). The proxy is configured by its environment alone:
the test starts it with exactly the ``export`` lines that
``sseconform gate --gateway-profile claude-code-proxy --print-gateway-config`` prints, and
serves its ASGI app with uvicorn on 127.0.0.1 (its own command binds 0.0.0.0:8082). Nothing
else is written by hand: the run is the one a user makes.

It serves ``/v1/messages`` alone, the endpoint its profile grades by default. The test
asserts that the run grades every scenario of the anthropic, gemini and openai dialects (the
Responses ones are not applicable: its LiteLLM cannot call that API), that every located
finding points at real bytes, that the scenarios fail only for the deviations in
``ccp-known.json`` (each note says what the proxy does, checked against the bytes), each of
which still happens, and that the proxy still serves after the run: on some upstream
failures it raises inside its own error handler, which uvicorn answers with a bare HTTP 500
while the process goes on. The scorecard goes to ``$SSECONFORM_CCP_SCORECARD``.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from sseconform.gate.suite import builtin_suite
from tests.conftest import ROOT
from tests.gate import real

HERE = ROOT / "tests" / "gate"
PROFILE = "claude-code-proxy"
BASELINE = HERE / "ccp-known.json"
VERSION = real.pinned(HERE / "ccp" / "install.sh", "CCP_VERSION")
DIALECTS = ("anthropic", "gemini", "openai", "responses")


def environment(printed: str) -> dict[str, str]:
    """The variables of the printed config: one ``export NAME=VALUE`` a line (a user sources
    it in a shell; no line may be anything else)."""
    env: dict[str, str] = {}
    for line in printed.splitlines():
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        words = shlex.split(line)
        assert len(words) == 2 and words[0] == "export", line
        name, sep, value = words[1].partition("=")
        assert sep and name.isidentifier(), line
        env[name] = value
    return env


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[real.Served]:
    python = real.need(
        real.venv_python("SSECONFORM_CCP", "server/fastapi.py"),
        "SSECONFORM_REQUIRE_CCP",
        "claude-code-proxy's venv",
    )
    upstream = real.free_port()
    printed = real.printed_config(PROFILE, upstream)
    env = environment(printed)
    bases = ("OPENAI_BASE_URL", "ANTHROPIC_API_BASE", "GEMINI_API_BASE")
    assert all(env[b].split("/")[2] == f"127.0.0.1:{upstream}" for b in bases), env
    work = tmp_path_factory.mktemp("ccp")
    port = real.free_port()
    argv = [
        str(python), "-m", "uvicorn", "server.fastapi:app",
        "--host", "127.0.0.1", "--port", str(port),
    ]  # fmt: skip
    with real.running("claude-code-proxy", argv, work, "/", port, 120, env=env) as url:
        yield real.Served(url, upstream, work / "claude-code-proxy.log")


def test_default_suites_through_claude_code_proxy(proxy: real.Served, tmp_path: Path) -> None:
    everything = {f"messages/{s.name}" for d in DIALECTS for s in builtin_suite(d).scenarios}
    names, only = real.chosen(everything, PROFILE, VERSION)
    data, printed = real.gate(
        tmp_path,
        "--gateway", proxy.url,
        "--gateway-profile", PROFILE,
        "--upstream-port", str(proxy.upstream_port),
        "--baseline", str(BASELINE),
        *only,
    )  # fmt: skip
    assert data["profile"] == "claude-code-proxy"
    scenarios = {s["name"]: s for s in data["scenarios"]}
    what = f"claude-code-proxy {VERSION} (messages endpoint, "
    what += f"{real.extent(len(names), len(everything))}, baseline tests/gate/{BASELINE.name})"
    real.write_scorecard("SSECONFORM_CCP_SCORECARD", real.scorecard(scenarios, what))
    # the run graded whatever happened; a proxy that died in it shows here, with its log (its
    # crashes inside a request are uvicorn's bare HTTP 500s: the process goes on serving)
    assert proxy.serving(), proxy.log.read_text(errors="replace")[-5000:]
    assert set(scenarios) == names  # /v1/messages alone, the profile's endpoints
    for name, s in scenarios.items():
        if name.startswith("messages/responses/"):  # no Responses bridge in its LiteLLM
            assert s["verdict"] == "not-applicable", (name, s)
            continue
        assert s["verdict"] not in ("not-applicable", "unreached"), (name, s)
        assert s["status"] is not None and s["upstream_requests"] >= 1, (name, s)
    real.assert_located(scenarios)
    real.assert_only_known(scenarios)
    assert data["passed"], printed


def test_claude_code_proxys_answer_to_the_websocket_upgrade(proxy: real.Served) -> None:
    """Codex CLI's upgrade on /v1/responses (``supports_websockets = true``; the proxy serves
    no Responses endpoint): 403, Starlette's answer to a WebSocket on no route; Codex
    retries 5 times before it falls back, about 6.2 s a session (a warning)."""
    answer = real.upgrade_answer(proxy.url, "claude-code-proxy", upstream=proxy.upstream_port)
    assert answer.label == "refused-403", answer
