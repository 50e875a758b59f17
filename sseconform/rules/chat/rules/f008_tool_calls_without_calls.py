"""F008 tool-calls-without-calls: `tool_calls` but no call made."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.chat.hooks import FINISH
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Choice
    from sseconform.sse.decoder import Event

RULE = define(
    "F008",
    "tool-calls-without-calls",
    Severity.ERROR,
    FINAL_EMPTY_DELTA,
    "`tool_calls` but no call made.",
    RuleDoc(
        what="finish_reason is `tool_calls` but no call was made in the choice.",
        why=(
            "Clients then look for calls to run and find none; a loop that expects tool results "
            "before its next request can stall or send an empty turn."
        ),
        clients=(
            "Beyond the matrix: Agent loops that branch on the finish reason take the "
            "tool path with nothing to run."
        ),
        fix=(
            'data: {...,"delta":{"content":"Done."}}\n'
            "\n"
            'data: {...,"delta":{},"finish_reason":"stop"}\n'
            "\n"
        ),
    ),
)


@FINISH.on(RULE)
def check(c: StreamChecker, ev: Event, pos: int, choice: Choice, delta: Any, fr: Any) -> None:
    """finish_reason tool_calls on a choice that made no call."""
    if fr == "tool_calls" and not (choice.calls or choice.untracked_calls):
        c.report(
            RULE, "finish_reason tool_calls, but no call was made", ev, f"/choices/{pos}/delta"
        )
