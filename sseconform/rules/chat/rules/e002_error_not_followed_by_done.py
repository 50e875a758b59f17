"""E002 error-not-followed-by-done: No `[DONE]` right after an error."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import ERROR_THEN_DONE, Severity, define
from sseconform.rules.chat.hooks import DATA_AFTER_ERROR, END
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "E002",
    "error-not-followed-by-done",
    Severity.WARNING,
    ERROR_THEN_DONE,
    "No `[DONE]` right after an error.",
    RuleDoc(
        what=(
            "The frame after an error frame is not `[DONE]`, or the stream ends after the error "
            "frame without `[DONE]`."
        ),
        why=(
            "An error ends the stream: the error frame, then `[DONE]`, nothing else. Chunks after "
            "it mean the gateway retried or failed over mid-stream; a missing `[DONE]` is Groq's "
            "shape (`event: error`, then nothing)."
        ),
        clients=(
            "Beyond the matrix: a client that stops at the error loses them, one that "
            "does not appends them to an answer it was told had failed."
        ),
        fix=('data: {"error":{"message":"overloaded","type":"server_error"}}\n\ndata: [DONE]\n\n'),
    ),
)


@DATA_AFTER_ERROR.on(RULE)
def check(c: StreamChecker, ev: Event, err: Event) -> None:
    """Data after the error frame, where `[DONE]` belongs."""
    c.report(RULE, f"the error frame at frame {err.frame} is followed by data, not [DONE]", ev)


@END.on(RULE)
def check_end(c: StreamChecker) -> None:
    """The stream ends right after the error frame, with no `[DONE]`."""
    if c.awaiting_done is not None:
        c.report_at_end(RULE, f"the stream ends after the error frame {c.awaiting_done.frame}")
