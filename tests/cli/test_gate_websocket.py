"""``sseconform gate --transport websocket`` against replay standing in for a gateway: its
WebSocket mode accepted (each scenario then runs over it), the
upgrade refused with 400 (an error, exit 1) or 426 (no finding, exit 0), nothing listening
(exit 1), bad options (exit 2); and ``sseconform rule transport:websocket-refused``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sseconform.replay.plan import load
from sseconform.replay.server import ReplayServer
from tests.cli.helpers import run_cli
from tests.conftest import ROOT
from tests.gate.real import free_port

TEXT = ROOT / "recordings" / "responses" / "text-responses.jsonl"


def _gate(tmp: Path, gateway: str, *args: str) -> tuple[int, str, dict[str, Any] | None]:
    report = tmp / "report.json"
    run = run_cli(
        "gate", "--gateway", gateway, "--transport", "websocket", *args,
        "--out", str(tmp / "streams"), "--format", "json", "-o", str(report), cwd=tmp,
    )  # fmt: skip
    return run.code, run.both, json.loads(report.read_text()) if report.exists() else None


@pytest.mark.parametrize(
    ("fault", "code", "verdict", "severity"),
    [("ws-refuse=400", 1, "fail", "error"), ("ws-refuse=426", 0, "pass", None)],
)
def test_a_refused_upgrade_exits_by_its_severity(
    tmp_path: Path, fault: str, code: int, verdict: str, severity: str | None
) -> None:
    srv = ReplayServer([load(str(TEXT))], speed=0, fault=fault)
    with srv.running():
        got, said, report = _gate(tmp_path, srv.url)
    assert got == code, said
    assert report is not None
    (scenario,) = report["scenarios"]
    assert scenario["verdict"] == verdict
    found = [(f["name"], f["severity"]) for f in scenario["findings"]]
    assert found == ([] if severity is None else [("transport:websocket-refused", severity)])
    if severity == "error":
        assert "fails the turn" in scenario["findings"][0]["message"]


def test_an_accepted_upgrade_runs_the_scenarios_over_websocket(tmp_path: Path) -> None:
    """Replay accepts the upgrade and answers the turn itself (it is not the gate's
    upstream): the probe passes, the scenario runs as a session and its upstream is never
    reached."""
    srv = ReplayServer([load(str(TEXT))], speed=0)
    with srv.running():
        got, said, report = _gate(tmp_path, srv.url, "--only", "responses/responses/text")
    assert got == 1, said
    assert report is not None
    probe, run = report["scenarios"]
    assert probe["name"] == "responses/websocket-upgrade" and probe["verdict"] == "pass"
    assert run["name"] == "responses/responses/text" and run["verdict"] == "unreached"
    assert [f["name"] for f in run["findings"]] == ["upstream:not-reached"]
    assert Path(run["recording"]).exists()


def test_nothing_listening_is_named_and_fails(tmp_path: Path) -> None:
    got, said, report = _gate(tmp_path, f"http://127.0.0.1:{free_port()}")
    assert got == 1, said
    assert report is not None and "refused every connection" in str(report["gateway_down"])


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--endpoint", "chat"), "the chat endpoint has no WebSocket mode"),
        (("--transport", "ws"), "--transport 'ws': one of sse, websocket"),
    ],
)
def test_bad_options_are_usage_errors(tmp_path: Path, args: tuple[str, ...], said: str) -> None:
    got, both, report = _gate(tmp_path, f"http://127.0.0.1:{free_port()}", *args)
    assert got == 2 and said in both and report is None


def test_rule_prints_the_measured_costs(tmp_path: Path) -> None:
    run = run_cli("rule", "transport:websocket-refused", cwd=tmp_path)
    assert run.code == 0, run.both
    assert run.out.startswith("transport:websocket-refused (")
    for title in ("What it does", "Why it matters", "Which clients break", "Fix"):
        assert f"## {title}" in run.out
    text = " ".join(run.out.split())
    for figure in ("Codex CLI", "costs nothing", "about 6.2 s", "about 111 s"):
        assert figure in text, figure
    assert "fails the turn" in text and "InvalidStatus" in text
