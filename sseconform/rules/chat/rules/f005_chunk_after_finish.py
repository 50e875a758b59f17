"""F005 chunk-after-finish: A delta for a choice after its finish."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.chat.hooks import AFTER_FINISH
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Choice
    from sseconform.sse.decoder import Event

RULE = define(
    "F005",
    "chunk-after-finish",
    Severity.WARNING,
    FINAL_EMPTY_DELTA,
    "A delta for a choice after its finish.",
    RuleDoc(
        what=(
            "A delta for a choice (content, reasoning, tool calls, or any other non-finish chunk) "
            "arrives after that choice's finish chunk; a repeated finish is F004 instead."
        ),
        why=(
            "The finish chunk is the last chunk with choices; only the usage chunk and `[DONE]` "
            "may follow. Content after it can mean the gateway emits the finish when the upstream "
            "signals it, before flushing the deltas it still holds."
        ),
        clients=(
            "Beyond the matrix: Clients that close the message at the finish reason "
            "drop what follows; others append it after the answer was reported complete."
        ),
        fix=(
            'data: {...,"delta":{"content":" Bye."}}\n'
            "\n"
            'data: {...,"delta":{},"finish_reason":"stop"}\n'
            "\n"
        ),
    ),
)


@AFTER_FINISH.on(RULE)
def check(c: StreamChecker, ev: Event, pos: int, choice: Choice, fr: Any) -> None:
    """A chunk for a finished choice (a second finish_reason is F004's)."""
    if fr is None:
        c.report(RULE, f"a chunk for choice {choice.index} after its finish chunk", ev)
