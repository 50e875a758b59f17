"""S003 response-id-changed: A lifecycle event names another response id."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import RESPONSE_ID

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S003",
    "response-id-changed",
    Severity.ERROR,
    "created-first",
    "A lifecycle event names another response id.",
    RuleDoc(
        what=(
            "`response.in_progress`, `response.queued` or the terminal event carries a "
            "`response.id` other than the one `response.created` gave."
        ),
        why=(
            "The response id is what clients store (`previous_response_id`, retrieval, "
            "cancellation); a changed id points at a response the client never saw created."
        ),
        clients=(
            'openai-python: `responses.stream()` raises RuntimeError ("Lifecycle response '
            'identity changed.") at the event.'
        ),
        fix="Use the id of `response.created` in every lifecycle and terminal event.",
    ),
)


@RESPONSE_ID.on(RULE)
def check(c: ResponsesChecker, ev: Event, rid: Any, first: Any) -> None:
    """A response object whose id is not the stream's first one."""
    c.report(RULE, f"response id {rid!r}, the stream's is {first!r}", ev, "/response/id")
