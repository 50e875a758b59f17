"""S062 chat-chunk-in-responses: A `chat.completion.chunk` in a Responses stream."""

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
    "S062",
    "chat-chunk-in-responses",
    Severity.ERROR,
    "no-foreign-shapes",
    "A `chat.completion.chunk` in a Responses stream.",
    RuleDoc(
        what=(
            "An event whose data is a chat-completions chunk (`object: chat.completion.chunk` or "
            "`choices`) and has no `type`."
        ),
        why=(
            "A gateway mixing the two APIs' shapes; Responses clients dispatch on `type` and drop "
            "the chunk."
        ),
        clients=(
            "openai-python: yields it as an unknown event and does not add its content: the "
            "chunk's text is silently lost."
        ),
        fix=(
            "event: response.output_text.delta\ndata: "
            '{"type":"response.output_text.delta","delta":"Hi",...}\n\n'
        ),
    ),
)


@UNTYPED.on(RULE)
def check(c: ResponsesChecker, ev: Event, obj: dict[str, Any]) -> None:
    """A chat completion chunk where a typed Responses event belongs."""
    if is_chat_chunk(obj):
        c.report(RULE, "a chat.completion.chunk in a Responses stream", ev)
