"""The smoke selection (``pytest -m smoke -n 0``, under a minute on two cores): every command
once as a user runs it, every grammar checked, and one gate run through the demo gateway
(``sseconform/demo/gateway.py``), so a change that breaks any of them shows in a quick loop.
The deep tests of each stay in their own folders."""

from __future__ import annotations

import importlib.util
import json
import signal
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from sseconform.rules.catalog import GRAMMARS
from tests.cli.helpers import Run, popen_interruptible, run_cli
from tests.conftest import ROOT
from tests.gate.test_gate import free_port
from tests.record import CHAT, cli_env, command, wait_for, workdir

pytestmark = pytest.mark.smoke

RECORDINGS = ROOT / "recordings"
#: A conforming stream of each grammar.
STREAMS = {
    "chat": RECORDINGS / "chat" / "text-usage.jsonl",
    "anthropic": RECORDINGS / "anthropic" / "text-anthropic.jsonl",
    "responses": RECORDINGS / "responses" / "text-responses.jsonl",
    "open-responses": ROOT / "tests/cases/open-responses/pass/suite-basic-response/stream.sse",
    "gemini": RECORDINGS / "gemini" / "text-gemini.jsonl",
}
BODY = '{"model": "gpt-4o-mini", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'


@pytest.fixture
def wd(tmp_path: Path) -> Path:
    return workdir(tmp_path)


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """The demo gateway as a user starts it (``sseconform demo-gateway``), faithful, and the
    port of the replay upstream it calls; stopped with Ctrl-C, it exits 0."""
    port, upstream = free_port(), free_port()
    args = ("demo-gateway", "--port", str(port), "--upstream-port", str(upstream))
    proc = popen_interruptible(command(*args), cwd=tmp_path_factory.mktemp("demo"), env=cli_env())
    try:
        wait_for(lambda: _listens(port) or proc.poll() is not None, "the demo gateway")
        assert proc.poll() is None, proc.communicate()
        yield f"http://127.0.0.1:{port}", upstream
    finally:
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err


def _listens(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def _ok(run: Run) -> Run:
    assert run.code == 0, run.both[-3000:]
    return run


#: The commands this file runs: every one the CLI has (a new command joins the smoke run).
SMOKED = {"check", "rules", "rule", "translate", "inspect", "diff", "replay", "record", "gate",
          "load", "compare", "demo-gateway"}  # fmt: skip


def test_every_grammar_and_command_is_here() -> None:
    from sseconform.cli.main import app

    assert set(STREAMS) == set(GRAMMARS)
    commands = {
        c.name or (c.callback.__name__ if c.callback else "")
        for c in app.registered_commands
        if not c.hidden
    }
    assert commands == SMOKED


@pytest.mark.parametrize("grammar", sorted(STREAMS))
def test_check_in_every_grammar(grammar: str, wd: Path) -> None:
    run = _ok(run_cli("check", "--grammar", grammar, STREAMS[grammar], cwd=wd))
    assert "ok: 1 file checked, 0 failed" in run.out
    if grammar != "open-responses":  # a profile of responses: auto reads it as responses
        auto = _ok(run_cli("check", "--grammar", "auto", STREAMS[grammar], cwd=wd))
        assert auto.out == run.out


def test_check_finds_a_gateway_s_bugs(wd: Path) -> None:
    run = run_cli("check", RECORDINGS / "gateway-bugs", cwd=wd)
    assert run.code == 1 and "FAILED" in run.out and "help: sseconform rule " in run.out


def test_rules_and_rule(wd: Path) -> None:
    assert "T001" in _ok(run_cli("rules", cwd=wd)).out
    assert "## Which clients break" in _ok(run_cli("rule", "T001", cwd=wd)).out
    assert _ok(run_cli("rule", "turn2:diff:lost:reasoning", cwd=wd)).out.startswith(
        "turn2:diff:lost:reasoning is the rule diff:lost"
    )


@pytest.mark.parametrize("target", ["chat", "responses", "gemini"])
def test_translate_into_a_stream_its_grammar_takes(target: str, wd: Path) -> None:
    out = wd / f"t.{target}.sse"
    _ok(run_cli("translate", STREAMS["anthropic"], "--to", target, "-o", out, cwd=wd))
    _ok(run_cli("check", "--grammar", target, out, cwd=wd))


def test_inspect_and_diff(wd: Path) -> None:
    shown = _ok(run_cli("inspect", "--no-live", STREAMS["anthropic"], cwd=wd))
    assert "dialect anthropic" in shown.out
    same = STREAMS["gemini"]
    _ok(run_cli("diff", "--gateway-from", "auto", same, same, cwd=wd))


def test_replay_then_record_with_check(wd: Path) -> None:
    """``replay`` serves a recording on 127.0.0.1; ``record --check`` records it back."""
    port = free_port()
    served = subprocess.Popen(
        command("replay", STREAMS["chat"], "--port", str(port), "--speed", "0"),
        cwd=wd, env=cli_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}{CHAT}"
        wait_for(lambda: _listening(port), "the replay upstream")
        run = _ok(run_cli("record", url, "-d", BODY, "-o", "r.jsonl", "--check", cwd=wd))
        assert "ok: 1 file checked, 0 failed" in run.out
    finally:
        served.terminate()
        served.communicate(timeout=10)


def _listening(port: int) -> bool:
    import socket

    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_one_gate_run_through_the_test_gateway(wd: Path, gateway: tuple[str, int]) -> None:
    url, port = gateway
    run = run_cli(
        "gate", "--gateway", url, "--upstream-port", str(port), "--suite", "builtin:anthropic",
        "--only", "anthropic/t*", "--speed", "0", "--out", "out", "--format", "json",
        "-o", "run.json", cwd=wd,
    )  # fmt: skip
    _ok(run)
    assert json.loads((wd / "run.json").read_text())["summary"]["pass"] == 3
    same = _ok(run_cli("compare", "run.json", "run.json", cwd=wd))
    assert "0 broke, 0 fixed" in same.out


@pytest.mark.skipif(
    importlib.util.find_spec("locust") is None, reason="Locust is not installed (sseconform[load])"
)
def test_load_for_two_seconds(wd: Path, gateway: tuple[str, int]) -> None:
    url, port = gateway
    run = run_cli(
        "load", "--gateway", url, "--upstream-port", str(port), "--only", "*/text",
        "--users", "2", "--spawn-rate", "2", "--run-time", "2s", "--speed", "0",
        cwd=wd,
    )  # fmt: skip
    assert run.code == 0, run.both[-3000:]
