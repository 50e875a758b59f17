"""S064 event-type-missing: Event data without a string `type`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.native import is_chat_chunk
from sseconform.rules.responses.hooks import UNTYPED

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S064",
    "event-type-missing",
    Severity.ERROR,
    "no-foreign-shapes",
    "Event data without a string `type`.",
    RuleDoc(
        what="A JSON object without a string `type` (and not a chat chunk, S062).",
        why="Every Responses event says its type in the data; clients dispatch on it.",
        clients=(
            "openai-python: yields an untyped event the stream helper ignores; its content is lost."
        ),
        fix=(
            'data: {"type":"response.output_text.delta","delta":"Hi",...,"sequence_number":2}\n\n'
        ),
    ),
)


@UNTYPED.on(RULE)
def check(c: ResponsesChecker, ev: Event, obj: dict[str, Any]) -> None:
    """An object without a string `type` (a chat chunk is S062's)."""
    if not is_chat_chunk(obj):
        c.report(RULE, "an event whose data has no string `type`", ev, "/type")
