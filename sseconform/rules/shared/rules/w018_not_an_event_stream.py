"""W018 not-an-event-stream: A non-empty body with no SSE event in it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import NOT_SSE

if TYPE_CHECKING:
    from sseconform.rules.base import Checker


RULE = define(
    "W018",
    "not-an-event-stream",
    Severity.ERROR,
    None,
    "A non-empty body with no SSE event in it.",
    RuleDoc(
        what=(
            "The body is not empty but no SSE event was dispatched from it: it is a JSON "
            "document, an HTML page or plain text, not `data:` events."
        ),
        why=(
            "A gateway that answers a streaming request with a plain JSON error body (often with "
            "status 200) leaves every SSE client with nothing: no chunk, no error frame."
        ),
        clients=(
            "Beyond the matrix: A spec-following SSE parser dispatches no event from "
            "such a body, so clients see an empty stream; httpx-sse raises on a Content-Type that "
            "is not text/event-stream."
        ),
        example='{"error": {"code": 400, "message": "Request contains an invalid argument."}}',
        fix=(
            "Before the first byte, answer with a non-2xx status and the JSON error body; after "
            "it, send an error frame then [DONE]:\n"
            'data: {"error":{"message":"Request contains an invalid argument."}}\n'
            "\n"
            "data: [DONE]\n"
            "\n"
        ),
    ),
)


@NOT_SSE.on(RULE)
def check(c: Checker, size: int, looks_like: str) -> None:
    """A body with no SSE event in it (at the start of the body)."""
    c.report_at_end(RULE, f"no SSE event in {size} bytes: the body looks like {looks_like}")
