"""A distributed load run as the README gives it: settings written once, one shared replay
upstream (``load --serve-upstream``), Locust's own master and two workers with sseconform's
locustfile. The master adds up its workers' figures and writes the report: every stream
counted once, the corrupting gateway's fault rate recovered, the users per second the run's
total (not one worker's), and the report renders as a page."""

from __future__ import annotations

import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sseconform.demo.gateway import Gateway
from tests.cli.helpers import run_cli
from tests.gate.test_gate import free_port

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("locust") is None, reason="Locust is not installed (sseconform[load])"
)
TEXT = [a for g in ("*/text", "*/usage") for a in ("--only", g)]


def _wait_port(port: int, seconds: float = 30) -> None:
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise AssertionError(f"nothing listens on 127.0.0.1:{port}")


def test_master_and_two_workers_with_a_shared_upstream(tmp_path: Path) -> None:
    upstream, master = free_port(), free_port()
    with Gateway(f"http://127.0.0.1:{upstream}", {"load-corrupt"}).running() as gw:
        wrote = run_cli(
            "load", "--gateway", gw.url, "--upstream-port", str(upstream), *TEXT,
            "--write-settings", "s.json", "-o", "report.json", cwd=tmp_path,
        )  # fmt: skip
        assert wrote.code == 0, wrote.both
        env = {**os.environ, "SSECONFORM_LOAD_SETTINGS": str(tmp_path / "s.json")}
        locustfile = run_cli("load", "--print-locustfile", cwd=tmp_path).out.strip()
        py = [sys.executable, "-m"]
        procs: list[subprocess.Popen[bytes] | subprocess.Popen[str]] = [
            subprocess.Popen([*py, "sseconform", "load", "--serve-upstream", "s.json"],
                             cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
        ]  # fmt: skip
        try:
            _wait_port(upstream)
            head = subprocess.Popen(
                [*py, "locust", "-f", locustfile, "--master", "--headless", "-u", "20",
                 "-r", "20", "-t", "8s", "--host", gw.url, "--expect-workers", "2",
                 "--master-bind-host", "127.0.0.1", "--master-bind-port", str(master),
                 "--stop-timeout", "20", "--exit-code-on-error", "0", "--only-summary"],
                cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                text=True,
            )  # fmt: skip
            procs.append(head)
            _wait_port(master)
            worker = [*py, "locust", "-f", locustfile, "--worker", "--master-host", "127.0.0.1",
                      "--master-port", str(master)]  # fmt: skip
            for _ in range(2):
                procs.append(subprocess.Popen(worker, cwd=tmp_path, env=env,
                                              stdout=subprocess.DEVNULL,
                                              stderr=subprocess.DEVNULL))  # fmt: skip
            out, _ = head.communicate(timeout=120)
            assert head.returncode == 0, out[-3000:]
        finally:
            for p in procs:
                if p.poll() is None:
                    p.send_signal(signal.SIGINT)
            for p in procs:
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:  # slow to stop on a loaded machine
                    p.kill()
                    p.wait()
    r = json.loads((tmp_path / "report.json").read_text())
    # enough streams to read a 10% rate (how many fit in the run: the machine's load)
    assert r["requests"] >= 50, r
    assert r["requests"] == r["conforming"] + r["nonconforming"]
    assert sum(s["requests"] for s in r["scenarios"].values()) == r["requests"]
    assert abs(r["nonconforming_rate"] - 0.10) <= 0.04, r
    assert set(r["codes"]) == {"diff:lost:text"}, r["codes"]
    assert max(lv["users"] for lv in r["levels"]) == 20  # the master's total, not a worker's
    page = run_cli("load", "--render", "report.json", "--format", "html", "-o", "r.html",
                   cwd=tmp_path)  # fmt: skip
    assert page.code == 0, page.both
