"""F004 finish-repeated: A choice gets a second finish_reason."""

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
    "F004",
    "finish-repeated",
    Severity.ERROR,
    FINAL_EMPTY_DELTA,
    "A choice gets a second finish_reason.",
    RuleDoc(
        what="A choice gets a second non-null finish_reason.",
        why=(
            "One finish chunk per choice. OpenRouter sends finish_reason twice; when the two "
            "values differ, which one a client acts on is up to the client."
        ),
        clients=(
            "Beyond the matrix: Which finish reason a client reports is then "
            "client-specific; if the two differ (say `stop`, then `tool_calls`), some clients may "
            "run the tools and others not."
        ),
        fix=('data: {...,"delta":{},"finish_reason":"stop"}\n\ndata: [DONE]\n\n'),
    ),
)


@AFTER_FINISH.on(RULE)
def check(c: StreamChecker, ev: Event, pos: int, choice: Choice, fr: Any) -> None:
    """A second finish_reason for a finished choice."""
    if fr is not None:
        c.report(
            RULE,
            f"second finish_reason {fr!r} for choice {choice.index} (first {choice.finish!r}, "
            f"frame {choice.finish_frame})",
            ev,
            f"/choices/{pos}/finish_reason",
        )
