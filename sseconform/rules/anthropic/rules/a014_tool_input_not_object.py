"""A014 tool-input-not-object: A tool block's input joins into JSON that is not an object."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.anthropic.hooks import INPUT_PARSED
from sseconform.rules.anthropic.invariants import TOOL_INPUT_JSON
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.rules.anthropic.state import Block
    from sseconform.sse.decoder import Event

RULE = define(
    "A014",
    "tool-input-not-object",
    Severity.ERROR,
    TOOL_INPUT_JSON,
    "A tool block's input joins into JSON that is not an object.",
    RuleDoc(
        what=(
            "At a tool block's stop its input_json_delta pieces join into valid "
            "JSON that is an array, a string or a number, not an object."
        ),
        why=(
            "A tool's input is an object (its input_schema is `type: object`); the "
            "API rejects any other input when the block is sent back with the tool result."
        ),
        clients=(
            "anthropic-python, @anthropic-ai/sdk, @ai-sdk/anthropic and Claude Code pass the "
            "value on as it is, and the tool or the next request fails; Qwen Code takes the "
            "call for a malformed one and asks the model again."
        ),
        fix=(
            '..."delta":{"type":"input_json_delta","partial_json":"{\\"city\\": \\"Paris\\"}"}}\n\n'
        ),
    ),
)


@INPUT_PARSED.on(RULE)
def check(c: AnthropicChecker, ev: Event, block: Block, what: str, value: Any) -> None:
    """A tool input that is JSON but not an object."""
    if type(value) is not dict:
        c.report(RULE, f"{what}: input is JSON {type(value).__name__}, not an object", ev)
