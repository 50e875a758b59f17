"""S063 anthropic-event-in-responses: An Anthropic Messages event in a Responses stream."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import FOREIGN_EVENT

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S063",
    "anthropic-event-in-responses",
    Severity.WARNING,
    "no-foreign-shapes",
    "An Anthropic Messages event in a Responses stream.",
    RuleDoc(
        what=(
            "An event whose `type` is an Anthropic Messages type (`message_start`, "
            "`content_block_delta`, `ping`, ...)."
        ),
        why=(
            "A translating gateway let an upstream event through untranslated; Responses clients "
            "do not know the type."
        ),
        clients="openai-python: yields it as an unknown event; its content is silently lost.",
        fix='data: {"type":"response.output_text.delta","delta":"Hi",...}\n\n',
    ),
)


@FOREIGN_EVENT.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str) -> None:
    """An Anthropic Messages event type."""
    c.report(RULE, f"an Anthropic event ({kind!r}) in a Responses stream", ev, "/type")
