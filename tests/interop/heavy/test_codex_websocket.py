"""Codex CLI through replay's WebSocket mode (``supports_websockets = true``), one turn,
offline: the prewarm (``generate: false``) and the turn chained to it on one socket, answered
by a Responses recording. Skipped when the heavy clients are not installed
(``tests/interop/heavy/install.sh``)."""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from sseconform.replay.plan import load
from sseconform.replay.server import ReplayServer
from sseconform.sse import SSEDecoder
from tests.conftest import ROOT
from tests.interop.heavy.cli import cli_env, json_lines, run_cli
from tests.interop.heavy.clients import INSTALL, codex_binary
from tests.interop.heavy.turns import codex_config
from tests.interop.matrix.clients import KEY

RECORDING = ROOT / "recordings" / "responses" / "text-responses.jsonl"


def recorded_text() -> str:
    rec = load(str(RECORDING))
    dec = SSEDecoder()
    events = [json.loads(e.data) for e in dec.feed(rec.body) + dec.finish() if e.data.strip()]
    return "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")


@pytest.mark.skipif(codex_binary() is None, reason=f"Codex CLI not installed: {INSTALL}")
def test_codex_turn_over_websocket() -> None:
    codex = codex_binary()
    assert codex is not None
    lines: list[str] = []
    srv = ReplayServer([load(str(RECORDING))], speed=0, log=lines.append)
    home = Path(tempfile.mkdtemp(prefix="sseconform-codex-ws-"))
    try:
        with srv.running():
            config = codex_config(srv.url, "gpt-test", websocket=True, agent=False, header=False)
            (home / "config.toml").write_text(config)
            env = cli_env(home, {"CODEX_HOME": str(home), "SSECONFORM_LOOPBACK_KEY": KEY})
            argv = [str(codex), "exec", "--skip-git-repo-check", "--json", "say hi"]
            run = run_cli(argv, home, env)
            deadline = time.monotonic() + 5  # the upgrade is logged once Codex's socket ends
            while not any(" 101 " in line for line in lines) and time.monotonic() < deadline:
                time.sleep(0.05)
            srv_lines = list(lines)
    finally:
        shutil.rmtree(home, ignore_errors=True)
    assert run.returncode == 0, run.stderr[-2000:]
    texts = [
        e["item"].get("text", "")
        for e in json_lines(run.stdout)
        if e.get("type") == "item.completed"
        and (e.get("item") or {}).get("type") == "agent_message"
    ]
    assert texts == [recorded_text()]
    log = "\n".join(srv_lines)
    assert " POST " not in log  # the turn came over the socket, with no fallback
    assert "prewarm (generate: false)" in log
    assert f"WS /v1/responses -> {RECORDING.name} as websocket 200" in log
    assert " GET /v1/responses -> - 101 " in log
    assert KEY not in log
