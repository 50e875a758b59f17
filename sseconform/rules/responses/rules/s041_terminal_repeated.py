"""S041 terminal-repeated: A second terminal event."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import TERMINAL_AGAIN

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S041",
    "terminal-repeated",
    Severity.WARNING,
    "one-terminal-event",
    "A second terminal event.",
    RuleDoc(
        what="A second `response.completed`, `response.incomplete` or `response.failed`.",
        why="One response ends once; a second end is two streams spliced or a replay.",
        clients=(
            "openai-python: keeps reading and returned the right final response in the "
            "measured case. Clients that finish on the first terminal event never see the "
            "second."
        ),
        fix="Send one terminal event, last.",
    ),
)


@TERMINAL_AGAIN.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str) -> None:
    """A terminal event after the first."""
    first = c.terminal.frame if c.terminal is not None else None
    c.report(RULE, f"{kind} after a terminal event (frame {first})", ev)
