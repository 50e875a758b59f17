"""Anthropic's thinking clashes, one table: what the replay upstream refuses is what the
built-in request steers clear of (``MessagesWire.fit``), whichever setting brings it (the
scenario's own or its route's)."""

from __future__ import annotations

from typing import Any

import pytest

from sseconform.wires import by_endpoint
from sseconform.wires.messages import THINKING_CLASHES, thinking_clashes

WIRE = by_endpoint("messages")
THINKING = {"type": "enabled", "budget_tokens": 31999}

CASES: list[tuple[str, dict[str, Any], dict[str, Any], list[str], Any]] = [
    # name, body's settings, the scenario's own, clashes before fit, thinking after fit
    ("none", {"max_tokens": 32000}, {}, [], THINKING),
    ("max-tokens-under-budget", {"max_tokens": 4000}, {"max_tokens": 4000},
     ["budget-not-under-max-tokens"], {"type": "enabled", "budget_tokens": 3999}),
    ("max-tokens-too-small-for-any-budget", {"max_tokens": 777}, {"max_tokens": 777},
     ["budget-not-under-max-tokens"], None),
    ("temperature", {"max_tokens": 32000, "temperature": 0.3}, {"temperature": 0.3},
     ["temperature-not-1"], None),
    ("temperature-from-the-route", {"max_tokens": 32000, "temperature": 0.3}, {},
     ["temperature-not-1"], None),
    ("temperature-1", {"max_tokens": 32000, "temperature": 1}, {"temperature": 1}, [],
     THINKING),
    ("forced-tool", {"max_tokens": 32000, "tool_choice": {"type": "any"}},
     {"tool_choice": {"type": "any"}}, ["forced-tool"], None),
    ("auto-tool", {"max_tokens": 32000, "tool_choice": {"type": "auto"}},
     {"tool_choice": {"type": "auto"}}, [], THINKING),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "body", "own", "clashes", "after"), CASES, ids=[c[0] for c in CASES]
)
def test_fit_leaves_no_clash_the_upstream_refuses(
    name: str, body: dict[str, Any], own: dict[str, Any], clashes: list[str], after: Any
) -> None:
    request = {**body, "thinking": dict(THINKING)}
    assert thinking_clashes(request) == clashes
    refused = WIRE.refuse(request)
    assert (refused.reason if refused else None) == (
        THINKING_CLASHES[clashes[0]] if clashes else None
    )
    WIRE.fit(request, own)
    assert request.get("thinking") == after
    assert thinking_clashes(request) == [] and WIRE.refuse(request) is None


def test_a_scenario_that_sets_thinking_gets_it_as_it_is() -> None:
    """A scenario that asks for a clash on purpose (to see the gateway's refusal) keeps it."""
    own = {"thinking": {"type": "enabled", "budget_tokens": 512}}
    request = {"max_tokens": 32000, **own}
    WIRE.fit(request, own)
    assert request["thinking"] == own["thinking"]
    assert thinking_clashes(request) == ["budget-too-small"]


def test_no_thinking_no_clash() -> None:
    assert thinking_clashes({"max_tokens": 1, "temperature": 0.1}) == []
    assert thinking_clashes({"thinking": {"type": "disabled"}, "temperature": 0.1}) == []
