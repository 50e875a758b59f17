"""T008 arguments-in-head: A call's first delta carries arguments."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import TOOL_CALL_HEAD, Severity, define
from sseconform.rules.chat.hooks import CALL_ADDED
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import CallHead
    from sseconform.sse.decoder import Event

RULE = define(
    "T008",
    "arguments-in-head",
    Severity.INFO,
    TOOL_CALL_HEAD,
    "A call's first delta carries arguments.",
    RuleDoc(
        what=(
            "The first delta of a call carries non-empty `function.arguments`, typically the "
            "whole arguments at once."
        ),
        why=(
            "Legal, and many providers send whole calls in one delta, but OpenAI starts the "
            'arguments from "" in the first delta, and code written against that can break.'
        ),
        clients=(
            "WRONG in the function-calling guide snippet, which doubles the arguments; fine in "
            "the other measured clients."
        ),
        fix=(
            'Start from "" and send the arguments in the next delta:\n'
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"n'
            'ame":"get_weather","arguments":""}}]}}\n'
            "\n"
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":\\"Paris'
            '\\"}"}}]}}\n'
            "\n"
        ),
    ),
)


@CALL_ADDED.on(RULE)
def check(c: StreamChecker, ev: Event, head: CallHead) -> None:
    """A call's first delta that carries arguments."""
    if head.fn.get("arguments"):
        c.report(RULE, f"call {head.idx}'s first delta carries its arguments", ev, head.where)
