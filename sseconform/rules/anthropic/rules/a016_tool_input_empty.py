"""A016 tool-input-empty: A tool_use block with input {} and no input_json_delta at all."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import INPUT_EMPTY
from sseconform.rules.anthropic.invariants import TOOL_INPUT_JSON
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.rules.anthropic.state import Block
    from sseconform.sse.decoder import Event

RULE = define(
    "A016",
    "tool-input-empty",
    Severity.WARNING,
    TOOL_INPUT_JSON,
    "A tool_use block with input {} and no input_json_delta at all.",
    RuleDoc(
        what=(
            "A `tool_use` block starts with `input: {}` and stops with no "
            "`input_json_delta` in between. Anthropic sends at least one (an empty "
            "`partial_json` for a tool without parameters), so none at all is the "
            "shape of a translation that dropped the arguments (LiteLLM #29491, "
            "#25836). A warning: for a tool that takes no parameters the meaning "
            "is the same."
        ),
        why=(
            "The tool is called with no arguments; when it has required parameters "
            "the agent loop fails or loops."
        ),
        clients=(
            "anthropic-python, @anthropic-ai/sdk, @ai-sdk/anthropic and Claude Code call the "
            "tool with {}; Claude Code then reports the required parameters as missing "
            "(LiteLLM #29491)."
        ),
        fix=(
            "event: content_block_start\n"
            'data: {...,"content_block":{"type":"tool_use","id":"toolu_1","name":"g'
            'et_weather","input":{}}}\n'
            "\n"
            '..."delta":{"type":"input_json_delta","partial_json":"{\\"city\\": '
            '\\"Paris\\"}"}}\n'
            "\n"
            "event: content_block_stop\n"
            'data: {"type":"content_block_stop","index":0}\n'
            "\n"
        ),
    ),
)


@INPUT_EMPTY.on(RULE)
def check(c: AnthropicChecker, ev: Event, block: Block, what: str) -> None:
    """A tool_use block with no input at all (not in its start, no delta, no other finding
    that explains it)."""
    if (
        block.deltas == 0
        and block.type == "tool_use"
        and not (block.input_in_start or block.mismatch_reported)
    ):
        c.report(RULE, f"{what}: input {{}} and no input_json_delta at all", ev)
