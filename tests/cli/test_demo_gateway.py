"""``sseconform demo-gateway`` as a newcomer runs it: started as a process on loopback, graded
by ``sseconform gate`` faithful (every scenario passes) and with a named bug (the scenario
it breaks fails, for that bug's finding); its bad arguments end in one line and exit 2."""

from __future__ import annotations

import json
import signal
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from sseconform.demo.gateway import BUGS
from tests.cli.helpers import cli_env, popen_interruptible, run_cli
from tests.conftest import ROOT
from tests.gate.real import free_port, listening, loopback


class Demo:
    """A started demo gateway: its URL, its upstream's port, and (once stopped) its output."""

    def __init__(self, port: int, upstream: int) -> None:
        self.url, self.port, self.upstream = f"http://127.0.0.1:{port}", port, upstream
        self.out = self.err = ""


@contextmanager
def _demo(tmp: Path, *args: str) -> Iterator[Demo]:
    """The command started as a user starts it, until it listens (on loopback only); stopped
    with Ctrl-C at the end, after which it has exited 0 without a traceback."""
    demo = Demo(free_port(), free_port())
    argv = [sys.executable, "-m", "sseconform", "demo-gateway", "--port", str(demo.port)]
    proc = popen_interruptible(
        [*argv, "--upstream-port", str(demo.upstream), *args], cwd=tmp, env=cli_env()
    )
    try:
        for _ in range(200):
            if listening(demo.port) or proc.poll() is not None:
                break
            time.sleep(0.05)
        addrs = listening(demo.port)
        assert addrs and all(loopback(a) for a in addrs), addrs
        yield demo
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        demo.out, demo.err = out.decode(), err.decode()
    assert proc.returncode == 0, demo.err
    assert "Traceback" not in demo.err


def _gate(tmp: Path, url: str, upstream: int, *only: str) -> tuple[int, dict[str, dict[str, Any]]]:
    picked = [a for name in only for a in ("--only", name)]
    run = run_cli(
        "gate", "--gateway", url, "--upstream-port", str(upstream), "--suite",
        "builtin:anthropic", *picked, "--out", str(tmp / "streams"), "--format", "json",
        "--output", str(tmp / "report.json"), cwd=tmp, timeout=300,
    )  # fmt: skip
    assert run.code in (0, 1), run.both
    report = json.loads((tmp / "report.json").read_text())
    return run.code, {s["name"]: s for s in report["scenarios"]}


SOME = ("anthropic/text", "anthropic/tool-call", "anthropic/max-tokens", "anthropic/reasoning")


def test_the_faithful_demo_gateway_passes(tmp_path: Path) -> None:
    with _demo(tmp_path) as demo:
        code, scenarios = _gate(tmp_path, demo.url, demo.upstream, *SOME)
    assert code == 0
    assert {n: s["verdict"] for n, s in scenarios.items()} == dict.fromkeys(SOME, "pass")


def test_a_named_bug_fails_the_scenario_it_breaks(tmp_path: Path) -> None:
    with _demo(tmp_path, "--bug", "wrong-finish") as demo:
        code, scenarios = _gate(tmp_path, demo.url, demo.upstream, *SOME)
    assert code == 1
    failed = {n for n, s in scenarios.items() if s["verdict"] == "fail"}
    assert failed == {"anthropic/max-tokens"}
    keys = {f["key"] for f in scenarios["anthropic/max-tokens"]["findings"]}
    assert "diff:changed:finish_reason" in keys, keys


def test_it_says_where_it_serves_and_how_to_grade_it(tmp_path: Path) -> None:
    with _demo(tmp_path, "--bug", "lose-token") as demo:
        pass
    assert demo.out.splitlines() == [
        f"sseconform demo-gateway: serving on {demo.url}, bugs: lose-token",
        f"  its upstream: http://127.0.0.1:{demo.upstream} (what `gate` starts there)",
        f"  grade it: sseconform gate --gateway {demo.url} --upstream-port {demo.upstream}",
    ]
    assert demo.err == "sseconform demo-gateway: stopped\n"


def test_list_bugs_names_each_one(tmp_path: Path) -> None:
    run = run_cli("demo-gateway", "--list-bugs", cwd=tmp_path)
    assert run.code == 0
    listed = [line.split()[0] for line in run.out.splitlines()]
    assert listed == list(BUGS)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--bug", "no-such-bug"], "no such bug: no-such-bug (sseconform demo-gateway --list-bugs"),
        (["--bug", "die-at:0"], "no such bug: die-at:0"),
        (["--bug", "ws-refuse:99"], "no such bug: ws-refuse:99"),
        (["--bug", "ws-refuse:CODE"], "no such bug: ws-refuse:CODE"),
        (["--port", "-1"], "Invalid value for '--port'"),
    ],
)
def test_bad_arguments_end_in_one_line(tmp_path: Path, args: list[str], said: str) -> None:
    run = run_cli("demo-gateway", *args, cwd=tmp_path)
    assert run.code == 2
    assert said in run.err


def test_a_port_in_use_is_said(tmp_path: Path) -> None:
    with _demo(tmp_path) as demo:
        port = str(demo.port)
        run = run_cli("demo-gateway", "--port", port, cwd=tmp_path)
    assert run.code == 2
    assert f"sseconform: error: cannot listen on 127.0.0.1:{port}" in run.err


def test_its_page_lists_every_bug() -> None:
    page = (ROOT / "docs" / "commands" / "demo-gateway.md").read_text(encoding="utf-8")
    bugs = page.split("## Its bugs", 1)[1]
    listed = [line.split("`")[1] for line in bugs.splitlines() if line.startswith("| `")]
    assert listed == list(BUGS)


def test_gate_transport_websocket_grades_the_demo_gateways_upgrade_answer(tmp_path: Path) -> None:
    """The demo gateway told to refuse the upgrade with 501 (``ws-refuse:501``, as
    http.server does): a warning naming the answer and its measured cost, the probe's one
    scenario passing, exit 0."""
    with _demo(tmp_path, "--bug", "ws-refuse:501") as demo:
        run = run_cli(
            "gate", "--gateway", demo.url, "--transport", "websocket", "--out",
            str(tmp_path / "streams"), cwd=tmp_path,
        )  # fmt: skip
        as_json = run_cli(
            "gate", "--gateway", demo.url, "--transport", "websocket", "--out",
            str(tmp_path / "streams-json"), "--format", "json", cwd=tmp_path,
        )  # fmt: skip
    assert run.code == 0, run.both
    line = next(ln for ln in run.out.splitlines() if "transport:websocket-refused" in ln)
    assert "transport:websocket-refused warning" in line and "HTTP 501" in line
    assert "about 6.2 s lost per session" in line and "answer 426 instead" in line
    assert "1/1 scenarios passed" in run.out
    assert as_json.code == 0, as_json.both
    (scenario,) = json.loads(as_json.out)["scenarios"]
    assert (scenario["name"], scenario["status"], scenario["verdict"]) == (
        "responses/websocket-upgrade",
        501,
        "pass",
    )
    assert [(f["name"], f["severity"]) for f in scenario["findings"]] == [
        ("transport:websocket-refused", "warning")
    ]
