"""The default suites through a real gateway: claude-code-router (CCR), from npm, on loopback.

`.ci/run` installs ``@musistudio/claude-code-router`` at the version
``tests/gate/ccr/install.sh`` pins (the tarball unpacked beside its runtime dependencies, as
its own ``npm install`` cannot resolve two of them) and points ``SSECONFORM_CCR`` at that
folder; without it this test skips (it fails instead when ``SSECONFORM_REQUIRE_CCR=1``, as in
CI). CCR runs with a temporary HOME, because it writes under ``~/.claude``, ``~/.codex`` and
``~/.config``: the only thing written there first is the config.json that
``sseconform gate --gateway-profile claude-code-router --print-gateway-config`` prints, which
CCR imports on its first start. Nothing else is written by hand: the run is the one a user
makes.

For each endpoint CCR serves, the test asserts that the run grades every scenario (Gemini
included: CCR calls Gemini without streaming, and replay answers ``:generateContent``), that
every located finding points at real bytes, and that the scenarios fail only for the
deviations in ``ccr-<endpoint>-known.json`` (each note says what CCR does, checked against the
bytes), each of which still happens. The scorecards go to ``$SSECONFORM_CCR_SCORECARD``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from sseconform.gate.suite import builtin_suite
from tests.conftest import ROOT
from tests.gate import real

HERE = ROOT / "tests" / "gate"
CLI = Path("node_modules", "@musistudio", "claude-code-router", "dist", "main", "cli.js")
VERSION = real.pinned(HERE / "ccr" / "install.sh", "CCR_VERSION")
DIALECTS = ("anthropic", "gemini", "openai", "responses")


def _install() -> Path | None:
    where = os.environ.get("SSECONFORM_CCR")
    return Path(where) if where and (Path(where) / CLI).is_file() else None


class CCR:
    """A running CCR, and the replay upstream port its config names."""

    def __init__(self, url: str, upstream_port: int) -> None:
        self.url = url
        self.upstream_port = upstream_port


@pytest.fixture(scope="module")
def ccr(tmp_path_factory: pytest.TempPathFactory) -> Iterator[CCR]:
    node = real.need(shutil.which("node"), "SSECONFORM_REQUIRE_CCR", "node")
    folder = real.need(_install(), "SSECONFORM_REQUIRE_CCR", "claude-code-router")
    home = tmp_path_factory.mktemp("ccr-home")
    upstream = real.free_port()
    printed = real.printed_config("claude-code-router", upstream)
    config = json.loads(printed)
    assert config["APIKEY"] and all(
        p["baseUrl"].startswith(f"http://127.0.0.1:{upstream}") for p in config["Providers"]
    )
    port, ui = real.free_port(), real.free_port()
    config["PORT"] = port  # the profile's 3456, moved so that parallel runs cannot collide
    (home / ".claude-code-router").mkdir()
    (home / ".claude-code-router" / "config.json").write_text(json.dumps(config))
    argv = [node, str(folder / CLI), "serve", "--no-open", "--host", "127.0.0.1", "--port", str(ui)]
    env = {"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    with real.running("ccr", argv, home, "/health", port, 90, env=env) as url:
        yield CCR(url, upstream)


ENDPOINTS = ("messages", "chat", "responses")


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_default_suites_through_ccr(ccr: CCR, tmp_path: Path, endpoint: str) -> None:
    baseline = HERE / f"ccr-{endpoint}-known.json"
    prefix = "" if endpoint == "chat" else f"{endpoint}/"  # chat's names are the suite's own
    everything = {prefix + s.name for d in DIALECTS for s in builtin_suite(d).scenarios}
    names, only = real.chosen(everything, "claude-code-router", VERSION)
    data, printed = real.gate(
        tmp_path,
        "--gateway", ccr.url,
        "--gateway-profile", "claude-code-router",
        "--upstream-port", str(ccr.upstream_port),
        "--endpoint", endpoint,
        "--baseline", str(baseline),
        *only,
    )  # fmt: skip
    assert data["profile"] == "claude-code-router"
    scenarios = {s["name"]: s for s in data["scenarios"]}
    assert set(scenarios) == names
    for name, s in scenarios.items():  # every dialect is routed and graded, Gemini included
        if name.endswith("/previous-response") and endpoint != "responses":
            assert s["verdict"] == "not-applicable", (name, s)  # a stored response: Responses'
            continue
        assert s["verdict"] not in ("not-applicable", "unreached"), (name, s)
        assert s["status"] is not None, (name, s)
    real.assert_located(scenarios)
    what = (
        f"claude-code-router {VERSION} ({endpoint} endpoint, "
        f"{real.extent(len(names), len(everything))}, baseline tests/gate/{baseline.name})"
    )
    real.write_scorecard("SSECONFORM_CCR_SCORECARD", real.scorecard(scenarios, what))
    real.assert_only_known(scenarios)
    assert data["passed"], printed


def test_ccrs_answer_to_the_websocket_upgrade(ccr: CCR) -> None:
    """Codex CLI's upgrade on /v1/responses (``supports_websockets = true``), asked as gate
    asks it, with the replay upstream listening: CCR 3.1.1 accepts it (101), having opened a
    WebSocket of its own to the upstream. (With no upstream it answers 101, then Close 1011.)"""
    answer = real.upgrade_answer(ccr.url, "claude-code-router", upstream=ccr.upstream_port)
    assert (answer.label, answer.status) == ("accepted", 101), answer


def test_ccrs_websocket_mode_passes_the_socket_through(ccr: CCR, tmp_path: Path) -> None:
    """CCR's WebSocket mode pipes the client's socket to the upstream's /v1/responses,
    whatever provider the model is routed to: a Responses upstream answers (the scenario
    passes), any other has no WebSocket mode and refuses every turn (an error event: Codex
    CLI fails the turn on a 4xx one, with no fallback to HTTP); the scenario is not graded
    (the upstream was not reached as a provider of that dialect would be)."""
    data, printed = real.gate(
        tmp_path,
        "--gateway", ccr.url,
        "--gateway-profile", "claude-code-router",
        "--transport", "websocket",
        "--upstream-port", str(ccr.upstream_port),
        "--only", "responses/responses/text",
        "--only", "responses/anthropic/text",
        "--speed", "0",
    )  # fmt: skip
    verdicts = {s["name"]: s["verdict"] for s in data["scenarios"]}
    assert verdicts == {
        "responses/websocket-upgrade": "pass",
        "responses/responses/text": "pass",
        "responses/anthropic/text": "unreached",
    }, printed
    refused = next(s for s in data["scenarios"] if s["name"] == "responses/anthropic/text")
    keys = {f["code"] for f in refused["findings"]}
    assert "refused" in keys, refused["findings"]
    real.write_scorecard(
        "SSECONFORM_CCR_SCORECARD",
        "claude-code-router over WebSocket: a Responses upstream passes (responses/text); "
        "an Anthropic one is not reached (responses/anthropic/text: CCR pipes the socket to "
        "the upstream's /v1/responses whatever the provider, and the upstream refuses it)",
    )
