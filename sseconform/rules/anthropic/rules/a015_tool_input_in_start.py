"""A015 tool-input-in-start: A tool_use block's input is carried in its content_block_start."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.anthropic.hooks import BLOCK_START
from sseconform.rules.anthropic.invariants import TOOL_INPUT_JSON
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A015",
    "tool-input-in-start",
    Severity.ERROR,
    TOOL_INPUT_JSON,
    "A tool_use block's input is carried in its content_block_start.",
    RuleDoc(
        what=(
            "A `tool_use` block's `content_block_start` has a non-empty `input`, "
            "whether or not input_json_delta pieces follow. Anthropic sends "
            "`input: {}` and streams the input; it fills the start only for a call "
            "made by a server tool (`caller.type` other than `direct`, "
            "programmatic tool calling), which is not reported."
        ),
        why=(
            "Clients build the input from the deltas: with none they see nothing, "
            "with both some join the two."
        ),
        clients=(
            "Input in the start only: Claude Code calls the tool with {}; anthropic-python, "
            "@anthropic-ai/sdk and @ai-sdk/anthropic read it. Input in the start and again in "
            "deltas: @ai-sdk/anthropic joins both into invalid JSON "
            "(AI_InvalidToolInputError); the others keep the deltas."
        ),
        fix=(
            "event: content_block_start\n"
            'data: {"type":"content_block_start","index":1,"content_block":{"type":'
            '"tool_use","id":"toolu_1","name":"get_weather","input":{}}}\n'
            "\n"
            '..."delta":{"type":"input_json_delta","partial_json":"{\\"city\\": '
            '\\"Paris\\"}"}}\n'
            "\n"
            "event: content_block_stop\n"
            'data: {"type":"content_block_stop","index":1}\n'
            "\n"
        ),
    ),
)


@BLOCK_START.on(RULE)
def check(c: AnthropicChecker, ev: Event, index: int, block: dict[str, Any], kind: str) -> None:
    """A tool_use block whose input comes whole in its start (a server-side caller's may)."""
    if kind != "tool_use":
        return
    given = block.get("input")
    caller = block.get("caller")
    by_server = type(caller) is dict and caller.get("type") not in (None, "direct")
    if type(given) is dict and given and not by_server:
        c.report(
            RULE,
            "the tool_use block's input is in content_block_start; it streams as "
            "input_json_delta after an empty {}",
            ev,
            "/content_block/input",
        )
