"""A027 event-after-error-event: Events after the error event."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import AFTER_END
from sseconform.rules.anthropic.invariants import ERROR_EVENT
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A027",
    "event-after-error-event",
    Severity.WARNING,
    ERROR_EVENT,
    "Events after the error event.",
    RuleDoc(
        what=(
            "Any event other than `ping` after an `error` event (reported once). "
            "The events after it are not checked further."
        ),
        why=(
            "An error event ends the stream: Anthropic closes the connection after "
            "it, and clients stop there."
        ),
        clients=(
            "anthropic-python, @anthropic-ai/sdk and @ai-sdk/anthropic raise at the error and "
            "never read the rest; Claude Code reports the error and retries, as it does for "
            "any error event."
        ),
        fix=(
            "event: error\n"
            'data: {"type":"error","error":{"type":"overloaded_error","message":"Ov'
            'erloaded"}}\n'
            "\n"
        ),
    ),
)


@AFTER_END.on(RULE)
def check(c: AnthropicChecker, ev: Event) -> None:
    """An event after the error event."""
    end = c.state.ended
    if end is not None and c.state.ended_by == "error":
        c.report(RULE, f"an event after the error event at frame {end.frame}", ev)
