"""The built-in scenarios ask as the real agents ask: each endpoint's built-in request carries
the parameters its agents send (captured from the agents themselves:
tests/interop/heavy/agent_requests.py), with the reference agent's values, so a gateway that
drops what Claude Code, Codex, Gemini CLI, OpenCode or Qwen Code send fails the built-in suites.
"""

from __future__ import annotations

from typing import Any

import pytest

from sseconform.gate.aimed import for_endpoint
from sseconform.gate.content import content_of
from sseconform.gate.request import GatewayRequests, request_body
from sseconform.gate.suite import builtin_suite
from sseconform.replay.plan import load
from sseconform.wires import by_endpoint
from tests.interop.heavy.agent_requests import AGENTS, captured, parameters

#: The agent whose values each endpoint's built-in request takes (the others on the endpoint:
#: their parameters, not their values). Qwen Code asks for fewer tokens than OpenCode.
REFERENCE = {"messages": "claude-code", "responses": "codex", "gemini": "gemini-cli",
             "chat": "opencode"}  # fmt: skip
#: What a built-in request carries beyond its reference agent's, and why.
BEYOND: dict[str, dict[str, str]] = {"messages": {}, "responses": {}, "gemini": {}, "chat": {}}


def builtin_parameters(endpoint: str, label: str = "tool-call") -> dict[str, Any]:
    """A built-in scenario's request as the gateway gets it (body and headers), read into
    its parameters as the agents' captures are."""
    suite = for_endpoint(builtin_suite("anthropic"), endpoint)
    sc = next(s for s in suite.scenarios if s.name.endswith(f"/{label}"))
    ref = content_of([load(sc.recording).body], "anthropic")
    body = request_body(suite, sc, ref)
    headers = dict(GatewayRequests(suite, "http://127.0.0.1:9", "http://127.0.0.1:9", "k")
                   .headers(sc.upstream or "anthropic", sc))  # fmt: skip
    return parameters(endpoint, body, headers)


def test_every_agent_is_captured_with_its_installed_version_pinned() -> None:
    got = captured()
    assert set(got) == set(AGENTS)
    for name, agent in AGENTS.items():
        assert got[name]["endpoint"] == agent.endpoint, name
        assert got[name]["parameters"], name


@pytest.mark.parametrize("endpoint", list(REFERENCE))
@pytest.mark.parametrize("label", ["text", "tool-call", "agent-loop"])
def test_a_built_in_request_asks_as_its_agents_ask(endpoint: str, label: str) -> None:
    got = builtin_parameters(endpoint, label)
    agents = {n: c for n, c in captured().items() if c["endpoint"] == endpoint}
    assert REFERENCE[endpoint] in agents
    for name, capture in agents.items():
        wanted = dict(capture["parameters"])
        if label == "text":  # no tool declared: nothing to choose between, as the APIs want
            wanted = {
                k: v for k, v in wanted.items() if k not in ("tool_choice", "parallel_tool_calls")
            }
        missing = set(wanted) - set(got)
        assert not missing, f"{endpoint}/{label} lacks {sorted(missing)}, which {name} sends"
        if name == REFERENCE[endpoint]:
            differ = {k: (got[k], v) for k, v in wanted.items() if got[k] != v}
            assert not differ, f"{endpoint}/{label}: (built-in, {name}) {differ}"
            allowed = set(BEYOND[endpoint]) | {"tool_choice", "parallel_tool_calls"}
            if label == "agent-loop":  # a scenario that asks for thinking itself
                allowed |= {"reasoning", "reasoning_effort"}
            assert set(got) - set(wanted) <= allowed, sorted(set(got) - set(wanted) - allowed)


def test_the_wires_name_their_agents() -> None:
    for endpoint in REFERENCE:
        assert by_endpoint(endpoint).agent, endpoint
