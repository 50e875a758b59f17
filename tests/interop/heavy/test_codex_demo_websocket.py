"""Codex CLI through the demo gateway's WebSocket mode (``supports_websockets = true``), two
turns, offline: the prewarm (``generate: false``), turn 1 chained to it (a call to
``exec_command``, which Codex runs), turn 2 chained to turn 1 with only the call's output; the
gateway forwards each to a replay upstream as the whole conversation (the upstream is
stateless and checks the history, encrypted reasoning included, as OpenAI does). Skipped when
the heavy clients are not installed (``tests/interop/heavy/install.sh``)."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from sseconform.demo import websocket
from sseconform.replay.plan import load
from tests.conftest import ROOT
from tests.interop.heavy.cli import cli_env, json_lines, run_cli
from tests.interop.heavy.clients import INSTALL, codex_binary
from tests.interop.heavy.turns import (
    codex_config,
    issued_state,
    responses_call,
    rewrite_recording,
    upstream,
)
from tests.interop.matrix.clients import KEY

RECORDINGS = ROOT / "recordings" / "responses"
LOOP = RECORDINGS / "agent-loop-responses.jsonl"
ANSWER = RECORDINGS / "agent-answer-responses.jsonl"
SHELL = {"cmd": "echo hi"}


@pytest.mark.skipif(codex_binary() is None, reason=f"Codex CLI not installed: {INSTALL}")
def test_codex_two_turns_over_the_demo_gateways_websocket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex = codex_binary()
    assert codex is not None
    sent: list[dict[str, Any]] = []  # what Codex sent on the socket, message by message
    turn = websocket.Upgraded._turn

    def kept(self: websocket.Upgraded, message: str | bytes) -> None:
        sent.append(json.loads(message))
        turn(self, message)

    monkeypatch.setattr(websocket.Upgraded, "_turn", kept)
    call = responses_call("exec_command", SHELL)
    loop = rewrite_recording(LOOP, tmp_path / "loop-exec.jsonl", call)
    work, home = tmp_path / "work", Path(tempfile.mkdtemp(prefix="sseconform-codex-ws-"))
    work.mkdir()
    try:
        with upstream("responses", loop, ANSWER, set()) as up:
            (home / "config.toml").write_text(codex_config(up.gateway.url, websocket=True))
            env = cli_env(home, {"CODEX_HOME": str(home), "SSECONFORM_LOOPBACK_KEY": KEY})
            argv = [str(codex), "exec", "--skip-git-repo-check", "--json", "say hi via a command"]
            run = run_cli(argv, work, env)
            up.settled()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    events = json_lines(run.stdout)
    assert run.returncode == 0, run.stderr[-2000:]
    done = [e["item"] for e in events if e.get("type") == "item.completed"]
    assert not [it for it in done if it.get("type") == "error"], events  # no fallback to HTTP
    ran = [
        (it["aggregated_output"], it["exit_code"])
        for it in done
        if it.get("type") == "command_execution"
    ]
    assert ran == [("hi\n", 0)]
    said = [it["text"] for it in done if it.get("type") == "agent_message"]
    assert said and said[-1]
    # Codex: prewarm, turn 1 chained to it, turn 2 chained to turn 1 with the call's output only
    assert [m.get("generate") for m in sent] == [False, None, None]
    assert all(m.get("previous_response_id") for m in sent[1:])
    assert [it.get("type") for it in sent[2]["input"]] == ["function_call_output"]
    # the upstream got each turn whole: turn 2 with turn 1's reasoning (its state intact),
    # the call and its output, and accepted it
    assert up.refusals() == [None, None] and len(up.replay.seen) == 2
    second = up.replay.seen[1].json
    assert "previous_response_id" not in second
    kinds = [it.get("type") for it in second["input"]]
    assert kinds[-3:] == ["reasoning", "function_call", "function_call_output"]
    [encrypted] = issued_state(load(str(loop)))
    assert second["input"][-3]["encrypted_content"] == encrypted
