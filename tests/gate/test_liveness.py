"""A gateway that dies mid-run is named once, with the scenario in flight when it died; the
scenarios after it are "not graded", not failures of their own, and the run exits 1 saying
so. A gateway that was never up tested nothing (exit 1, ``untested`` in JSON)."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from sseconform.demo.gateway import Gateway
from sseconform.gate import report
from sseconform.gate.liveness import listening
from sseconform.gate.runner import run_suite
from sseconform.gate.suite import load_suite
from tests.cli.helpers import run_cli
from tests.gate.test_gate import free_port

SCENARIOS = 6


def _suite(tmp_path: Path) -> Path:
    lines = ["speed = 0"]
    for n in range(1, SCENARIOS + 1):
        lines += ["[[scenario]]", f'name = "s{n}"',
                  'recording = "builtin:anthropic/text-anthropic.jsonl"']  # fmt: skip
    path = tmp_path / "suite.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_gateway_that_dies_is_named_once_and_the_rest_are_not_graded(tmp_path: Path) -> None:
    port = free_port()
    gw = Gateway(f"http://127.0.0.1:{port}", {"die-at:3"})
    with gw.running():
        result = run_suite(load_suite(str(_suite(tmp_path))), gw.url, str(tmp_path / "out"),
                           upstream_port=port)  # fmt: skip
    verdicts = [s.verdict for s in result.scenarios]
    assert verdicts == ["pass", "pass", "fail", *["not-graded"] * (SCENARIOS - 3)], verdicts
    assert result.down == "s3" and not result.passed
    assert "the gateway went down during this scenario" in result.scenarios[2].note
    for s in result.scenarios[3:]:
        assert s.note == "not graded: the gateway went down during s3" and not s.findings
    said = report.gateway_down([result])
    assert said == (
        "the gateway went down during s3 (it stopped accepting connections); the 3 "
        "scenario(s) after it were not graded"
    )
    assert report.totals([result]) == (
        f"2/3 scenarios passed (1 failed); 3 not graded besides (6 in all); {said}"
    )


def test_the_cli_says_so_and_exits_1(tmp_path: Path) -> None:
    port = free_port()
    gw = Gateway(f"http://127.0.0.1:{port}", {"die-at:2"})
    with gw.running():
        run = run_cli("gate", "--gateway", gw.url, "--suite", str(_suite(tmp_path)),
                      "--upstream-port", str(port), "--format", "json", "--out", "o",
                      cwd=tmp_path)  # fmt: skip
    assert run.code == 1 and "Traceback" not in run.err
    assert "the gateway went down during s2" in run.err
    doc = json.loads(run.out)
    assert doc["passed"] is False and doc["summary"]["not-graded"] == SCENARIOS - 2
    assert doc["gateway_down"].startswith("the gateway went down during s2")


def test_a_gateway_never_up_tested_nothing(tmp_path: Path) -> None:
    nobody = f"http://127.0.0.1:{free_port()}"
    assert not listening(nobody)
    run = run_cli("gate", "--gateway", nobody, "--suite", str(_suite(tmp_path)),
                  "--upstream-port", str(free_port()), "--format", "json", "--out", "o",
                  cwd=tmp_path)  # fmt: skip
    assert run.code == 1 and "Traceback" not in run.err
    doc = json.loads(run.out)
    assert doc["summary"]["not-graded"] == SCENARIOS and doc["summary"]["fail"] == 0
    assert (
        doc["untested"] == f"the gateway at {nobody} refused every connection: is it running there?"
    )
    assert "nothing was tested" in run.err


@pytest.mark.parametrize("concurrency", [3])
def test_under_concurrency_one_crash_fails_only_what_was_in_flight(
    tmp_path: Path, concurrency: int
) -> None:
    port = free_port()
    gw = Gateway(f"http://127.0.0.1:{port}", {"die-at:3"})
    with gw.running():
        result = run_suite(load_suite(str(_suite(tmp_path))), gw.url, str(tmp_path / "out"),
                           upstream_port=port, concurrency=concurrency)  # fmt: skip
    verdicts = [s.verdict for s in result.scenarios]
    assert result.down is not None and result.down
    assert verdicts.count("fail") == 1, verdicts
    assert verdicts.count("not-graded") >= SCENARIOS - concurrency, verdicts


def test_wait_starts_the_run_once_a_late_gateway_listens(tmp_path: Path) -> None:
    """``--wait``: a gateway that starts listening a second after the run began (as one a CI
    job has just started) is graded."""
    port, upstream = free_port(), free_port()
    started: list[Gateway] = []

    def start() -> None:
        gw = Gateway(f"http://127.0.0.1:{upstream}", port=port)
        started.append(gw)
        threading.Thread(target=gw.server.serve_forever, daemon=True).start()

    timer = threading.Timer(1.0, start)
    timer.start()
    try:
        run = run_cli("gate", "--gateway", f"http://127.0.0.1:{port}", "--suite",
                      str(_suite(tmp_path)), "--upstream-port", str(upstream), "--only", "s1",
                      "--wait", "20", "--out", "o", cwd=tmp_path)  # fmt: skip
    finally:
        timer.join()
        for gw in started:
            gw.server.shutdown()
            gw.server.server_close()
    assert run.code == 0, run.both
    assert f"waiting up to 20 s for http://127.0.0.1:{port} to listen" in run.err
    assert "1/1 scenarios passed" in run.out


def test_wait_ends_the_run_when_the_gateway_never_listens(tmp_path: Path) -> None:
    port = free_port()
    run = run_cli("gate", "--gateway", f"http://127.0.0.1:{port}", "--suite",
                  str(_suite(tmp_path)), "--wait", "0.5", "--out", "o", cwd=tmp_path)  # fmt: skip
    assert run.code == 1
    assert run.err.endswith(
        f"sseconform: error: http://127.0.0.1:{port} did not accept a connection in 0.5 s "
        "(--wait): is it up?\n"
    )
    assert not (tmp_path / "o").exists()
