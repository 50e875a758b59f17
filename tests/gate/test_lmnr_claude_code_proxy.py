"""The default suites through a real gateway: lmnr-claude-code-proxy, from PyPI, on loopback.

`.ci/run` installs ``lmnr-claude-code-proxy`` (Laminar's tracing proxy for Claude Code, a Rust
server with Python bindings) at the version ``tests/gate/lmnr/install.sh`` pins, into a venv of
its own, and points ``SSECONFORM_LMNR`` at that venv; without it this test skips (it fails
instead when ``SSECONFORM_REQUIRE_LMNR=1``, as in CI). The proxy has no command and no config
file: Python starts it, ``ProxyServer(port=N).run_server(target_url)``. The test runs exactly
the launcher that ``sseconform gate --gateway-profile lmnr-claude-code-proxy
--print-gateway-config`` prints (its target the replay upstream on 127.0.0.1) with the venv's
python, on a free port; the server binds 127.0.0.1 (checked). Nothing else is written by hand:
the run is the one a user makes.

It is a pass-through to one Anthropic target, graded on ``/v1/messages``: a control. The test
asserts that every anthropic scenario is graded and passes with nothing to accept
(``lmnr-known.json`` has no entries), the other dialects not applicable as the profile says,
that every located finding points at real bytes, and that the proxy still serves after the
run. The scorecard goes to ``$SSECONFORM_LMNR_SCORECARD``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from sseconform.gate.suite import builtin_suite
from tests.conftest import ROOT
from tests.gate import real

HERE = ROOT / "tests" / "gate"
PROFILE = "lmnr-claude-code-proxy"
BASELINE = HERE / "lmnr-known.json"
VERSION = real.pinned(HERE / "lmnr" / "install.sh", "LMNR_VERSION")
DIALECTS = ("anthropic", "gemini", "openai", "responses")
HEALTH = "/lmnr-internal/health"  # the proxy's own route (its Python side polls it)


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[real.Served]:
    python = real.need(
        real.venv_python("SSECONFORM_LMNR", "lmnr_claude_code_proxy/__init__.py"),
        "SSECONFORM_REQUIRE_LMNR",
        "lmnr-claude-code-proxy's venv",
    )
    upstream = real.free_port()
    printed = real.printed_config(PROFILE, upstream)
    assert f'proxy.run_server("http://127.0.0.1:{upstream}")' in printed, printed
    work = tmp_path_factory.mktemp("lmnr")
    launcher = work / "lmnr.py"
    launcher.write_text(printed, encoding="utf-8")
    port = real.free_port()
    argv = [str(python), str(launcher), str(port)]
    # running() checks that the port listens on loopback only
    with real.running(PROFILE, argv, work, HEALTH, port, 60) as url:
        yield real.Served(url, upstream, work / f"{PROFILE}.log", HEALTH)


def test_default_suites_through_lmnr_claude_code_proxy(proxy: real.Served, tmp_path: Path) -> None:
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
    assert data["profile"] == PROFILE
    scenarios = {s["name"]: s for s in data["scenarios"]}
    what = f"{PROFILE} {VERSION} (messages endpoint, "
    what += f"{real.extent(len(names), len(everything))}, baseline tests/gate/{BASELINE.name})"
    real.write_scorecard("SSECONFORM_LMNR_SCORECARD", real.scorecard(scenarios, what))
    assert proxy.serving(), proxy.log.read_text(errors="replace")[-5000:]
    assert set(scenarios) == names  # /v1/messages alone, the profile's endpoints
    for name, s in scenarios.items():
        if not name.startswith("messages/anthropic/"):  # one Anthropic target, untranslated
            assert s["verdict"] == "not-applicable", (name, s)
            continue
        # a pass-through: every scenario passes, nothing accepted, each request forwarded
        # once to the path it came on
        assert s["verdict"] == "pass", (name, s["findings"])
        assert s["status"] is not None and s["upstream_requests"] >= 1, (name, s)
        assert all(" POST /v1/messages -> " in line for line in s["upstream_log"]), s
    real.assert_located(scenarios)
    real.assert_only_known(scenarios)
    assert json.loads(BASELINE.read_text())["entries"] == {}
    assert data["passed"], printed
