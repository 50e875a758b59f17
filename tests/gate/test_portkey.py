"""The default suites through a real gateway: the Portkey AI Gateway, from npm, on loopback.

`.ci/run` installs ``@portkey-ai/gateway`` (the version ``tests/gate/portkey/package.json``
pins, ``npm ci --ignore-scripts``) and points ``SSECONFORM_PORTKEY`` at that folder; without it
this test skips (it fails instead when ``SSECONFORM_REQUIRE_PORTKEY=1``, as in CI). Portkey
binds every interface, so it runs under ``node --import tests/gate/portkey/loopback.mjs``,
which keeps its server on 127.0.0.1 (checked below). Portkey routes each request by its
headers; ``sseconform gate --gateway-profile portkey`` sends them (provider, and the replay
upstream as the custom host). What Portkey gets wrong is reported, not hidden; the test
asserts that:

- the run completes and grades every scenario of the dialects Portkey can route; the
  Responses ones are "not applicable" (Portkey has no chat provider backed by it);
- every finding that is located points at bytes really present in the recorded gateway
  stream (the start of the event it names, holding the excerpt it quotes);
- the scenarios Portkey handles correctly pass (no false alarm), and the others fail only for
  the deviations in ``portkey-known.json`` (a gate baseline, each entry's note says what it
  is, checked against the recorded bytes), each of which still happens.

The scorecard is written to ``$SSECONFORM_PORTKEY_SCORECARD`` when set (CI prints it).
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

HERE = ROOT / "tests" / "gate" / "portkey"
PRELOAD = HERE / "loopback.mjs"
SERVER = Path("node_modules", "@portkey-ai", "gateway", "build", "start-server.js")
VERSION = json.loads((HERE / "package.json").read_text())["dependencies"]["@portkey-ai/gateway"]
BASELINE = Path(__file__).with_name("portkey-known.json")
#: Passed on by Portkey as the provider's key (x-api-key, ?key=, Authorization); the replay
#: upstream takes any. Not a secret.
UPSTREAM_KEY = "sk-sseconform-replay-upstream"
ROUTED = ("anthropic", "gemini", "openai")
NOT_ROUTED = ("responses",)


def _install() -> Path | None:
    """The folder whose node_modules holds Portkey: $SSECONFORM_PORTKEY, else this one."""
    where = os.environ.get("SSECONFORM_PORTKEY")
    folder = Path(where) if where else HERE
    return folder if (folder / SERVER).is_file() else None


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    folder = _install()
    node = shutil.which("node")
    if folder is None or node is None:
        if os.environ.get("SSECONFORM_REQUIRE_PORTKEY") == "1":
            pytest.fail("SSECONFORM_REQUIRE_PORTKEY=1 but Portkey (or node) was not found")
        pytest.skip("the Portkey AI Gateway is not installed (.ci/run installs it)")
    tmp = tmp_path_factory.mktemp("portkey")
    port = real.free_port()
    argv = [node, "--import", PRELOAD.as_uri(), str(folder / SERVER), f"--port={port}"]
    with real.running("portkey", [*argv, "--headless"], tmp, "/", port, 60) as url:
        yield url


def test_default_suites_through_portkey(gateway: str, tmp_path: Path) -> None:
    everything = {s.name for d in ROUTED + NOT_ROUTED for s in builtin_suite(d).scenarios}
    names, only = real.chosen(everything, "portkey", VERSION)
    data, printed = real.gate(
        tmp_path,
        "--gateway", gateway,
        "--gateway-profile", "portkey",
        "--key", UPSTREAM_KEY,
        "--baseline", str(BASELINE),
        *only,
    )  # fmt: skip
    assert data["profile"] == "portkey"
    scenarios = {s["name"]: s for s in data["scenarios"]}
    assert set(scenarios) == names
    # the dialects Portkey routes are graded (the gateway answered); the others are n/a
    for name, s in scenarios.items():
        if name.split("/", 1)[0] in NOT_ROUTED:
            assert s["verdict"] == "not-applicable", (name, s)
            assert s["status"] is None and not s["findings"], (name, s)
        else:
            assert s["verdict"] != "not-applicable", (name, s)
            assert s["status"] is not None, (name, s)
    real.assert_located(scenarios)
    what = f"Portkey {VERSION} ({real.extent(len(names), len(everything))}, baseline "
    what += "tests/gate/portkey-known.json)"
    real.write_scorecard("SSECONFORM_PORTKEY_SCORECARD", real.scorecard(scenarios, what))
    real.assert_only_known(scenarios)
    assert data["passed"], printed


#: Portkey's other endpoints: each serves one dialect, passed through (its profile says so).
PASS_THROUGH = {"messages": "anthropic", "responses": "responses"}


@pytest.mark.parametrize("endpoint", sorted(PASS_THROUGH))
def test_pass_through_endpoints_of_portkey(gateway: str, tmp_path: Path, endpoint: str) -> None:
    """Portkey's /v1/messages (its anthropic provider) and /v1/responses (OpenAI's Responses
    API), each passed through; every other (endpoint, dialect) pair is not applicable."""
    baseline = Path(__file__).with_name(f"portkey-{endpoint}-known.json")
    dialects = ROUTED + NOT_ROUTED
    everything = {f"{endpoint}/{s.name}" for d in dialects for s in builtin_suite(d).scenarios}
    names, only = real.chosen(everything, "portkey", VERSION)
    data, printed = real.gate(
        tmp_path,
        "--gateway", gateway,
        "--gateway-profile", "portkey",
        "--endpoint", endpoint,
        "--key", UPSTREAM_KEY,
        "--baseline", str(baseline),
        *only,
    )  # fmt: skip
    scenarios = {s["name"]: s for s in data["scenarios"]}
    graded = {n for n, s in scenarios.items() if s["verdict"] != "not-applicable"}
    own = builtin_suite(PASS_THROUGH[endpoint]).scenarios
    assert graded == {f"{endpoint}/{s.name}" for s in own} & names
    assert {s["endpoint"] for s in scenarios.values()} == {endpoint}
    real.assert_located(scenarios)
    what = f"Portkey {VERSION} ({endpoint} endpoint, {real.extent(len(names), len(everything))}"
    what += f", baseline tests/gate/{baseline.name})"
    real.write_scorecard("SSECONFORM_PORTKEY_SCORECARD", real.scorecard(scenarios, what))
    real.assert_only_known(scenarios)
    assert data["passed"], printed


def test_portkeys_answer_to_the_websocket_upgrade(gateway: str) -> None:
    """Codex CLI's upgrade on /v1/responses (``supports_websockets = true``): Portkey
    answers 500: Codex retries 5 times before it falls back to HTTP + SSE, about 6.2 s a
    session (a warning)."""
    answer = real.upgrade_answer(gateway, "portkey", UPSTREAM_KEY)
    assert answer.label == "refused-500", answer
