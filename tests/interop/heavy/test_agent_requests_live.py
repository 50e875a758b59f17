"""Each agent still asks what agent_requests.json says it asks: one run of each (about 3 s
of CPU), offline, against a replay upstream on 127.0.0.1. A new version of an agent that
sends other parameters fails here, with what it sends now; capture it again with
``python -m tests.interop.heavy.agent_requests --write`` and let the built-in requests follow
(tests/gate/test_agent_requests.py).

Skipped when an agent is not installed, unless ``SSECONFORM_REQUIRE_HEAVY=1``.
"""

from __future__ import annotations

import os

import pytest

from tests.interop.heavy.agent_requests import AGENTS, capture, captured

REQUIRE = os.environ.get("SSECONFORM_REQUIRE_HEAVY") == "1"


@pytest.mark.parametrize("name", list(AGENTS))
def test_the_agent_asks_as_captured(name: str) -> None:
    agent = AGENTS[name]
    if agent.version() is None:
        if REQUIRE:
            pytest.fail(f"{name} is not installed (tests/interop/heavy/install*.sh)")
        pytest.skip(f"{name} is not installed")
    was = captured()[name]
    now = capture(agent)
    if now["version"] != was["version"]:
        pytest.fail(
            f"{name} {now['version']} (captured: {was['version']}) asks: "
            f"{now['parameters']}; capture it again (python -m "
            "tests.interop.heavy.agent_requests --write)"
        )
    assert now == was
