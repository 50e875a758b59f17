"""A013 tool-input-invalid-json: A tool block's partial_json pieces do not join into JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import INPUT_INVALID
from sseconform.rules.anthropic.invariants import TOOL_INPUT_JSON
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A013",
    "tool-input-invalid-json",
    Severity.ERROR,
    TOOL_INPUT_JSON,
    "A tool block's partial_json pieces do not join into JSON.",
    RuleDoc(
        what=(
            "At a tool_use (or server_tool_use, mcp_tool_use) block's "
            "`content_block_stop`, its `input_json_delta` pieces joined are not "
            "valid JSON. Empty pieces join into nothing, which is the start's input (`{}`)."
        ),
        why=(
            "The client parses the joined input to call the tool; JSON that does "
            "not parse is a call that cannot be made, or one made with guessed arguments."
        ),
        clients=(
            "@ai-sdk/anthropic marks the call invalid (AI_InvalidToolInputError). "
            "anthropic-python and @anthropic-ai/sdk repair it with a partial-JSON parser and "
            "call the tool with what they guessed; Claude Code passes an '__unparsedToolInput' "
            "object to the tool."
        ),
        fix=(
            "event: content_block_delta\n"
            'data: {"type":"content_block_delta","index":1,"delta":{"type":"input_j'
            'son_delta","partial_json":"{\\"city\\": \\"Paris\\"}"}}\n'
            "\n"
            "event: content_block_stop\n"
            'data: {"type":"content_block_stop","index":1}\n'
            "\n"
        ),
    ),
)


@INPUT_INVALID.on(RULE)
def check(c: AnthropicChecker, ev: Event, said: str, cut: bool) -> None:
    """A tool input that is not JSON, and max_tokens did not cut it."""
    if not cut:
        c.report(RULE, said, ev)
