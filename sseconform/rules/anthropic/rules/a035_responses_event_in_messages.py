"""A035 responses-event-in-messages: A Responses API event in a Messages stream."""

from sseconform.rules.anthropic.invariants import NO_FOREIGN_SHAPES
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "A035",
    "responses-event-in-messages",
    Severity.ERROR,
    NO_FOREIGN_SHAPES,
    "A Responses API event in a Messages stream.",
    RuleDoc(
        what=(
            "An event whose `type` starts with `response.` (the Responses API's "
            "events): the other grammar leaked through a gateway. Reported once per type."
        ),
        why="Its content is in a shape no Messages client reads.",
        clients=(
            "@ai-sdk/anthropic fails the stream (AI_TypeValidationError); anthropic-python, "
            "@anthropic-ai/sdk and Claude Code skip it and lose its content."
        ),
        fix=(
            "event: content_block_delta\n"
            'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_de'
            'lta","text":"Hi"}}\n'
            "\n"
        ),
    ),
)
