"""A014 tool-input-not-object: A tool block's input joins into JSON that is not an object."""

from sseconform.rules.anthropic.invariants import TOOL_INPUT_JSON
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "A014",
    "tool-input-not-object",
    Severity.WARNING,
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
            "value on as it is; the tool or the next request fails (not measured here)."
        ),
        fix=(
            '..."delta":{"type":"input_json_delta","partial_json":"{\\"city\\": \\"Paris\\"}"}}\n\n'
        ),
    ),
)
