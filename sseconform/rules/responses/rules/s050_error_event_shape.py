"""S050 error-event-shape: The `error` event has no usable message."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import ERROR_INVALID
from sseconform.rules.schema import error_path, pointer_of

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S050",
    "error-event-shape",
    Severity.ERROR,
    "error-event",
    "The `error` event has no usable message.",
    RuleDoc(
        what=(
            "An `error` event without a string `message`, either at the top (`code`, `message`, "
            "`param`, as openai-python's ResponseErrorEvent has it) or nested under `error` (as "
            "OpenAI's service sends it, followed by `response.failed`), or another field of the "
            "wrong type."
        ),
        why=(
            "The message is what the user is told; an error without one is an unexplained failure."
        ),
        clients=(
            "openai-python: for a nested error without a string message it raises APIError "
            'with the generic "An error occurred during streaming"; for a flat one without '
            "`message` it yields an error event whose message is missing."
        ),
        fix=(
            'event: error\ndata: {"type":"error","code":"server_error","message":"The server had '
            'an error.","param":null,"sequence_number":2}\n\n'
        ),
    ),
)


@ERROR_INVALID.on(RULE)
def check(c: ResponsesChecker, ev: Event, errors: list[Any]) -> None:
    """An `error` event that breaks its schema."""
    for err in errors:
        c.report(RULE, f"error: {err.message}", ev, pointer_of(error_path(err)))
