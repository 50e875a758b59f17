"""A036 tool-input-cut: A tool block's input cut short by max_tokens."""

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
    "A036",
    "tool-input-cut",
    Severity.WARNING,
    TOOL_INPUT_JSON,
    "A tool block's input cut short by max_tokens.",
    RuleDoc(
        what=(
            "The last tool_use block's `partial_json` pieces do not join into JSON and the "
            "stop reason that follows is `max_tokens`: the model ran out of tokens mid-call. "
            "Invalid input under any other stop reason is A013."
        ),
        why=(
            "Not a gateway bug as such: Anthropic's own streams cut a call this way. The "
            "gateway must keep `max_tokens` (never `tool_use`), so clients know the call is "
            "incomplete and do not run it."
        ),
        clients=(
            "Clients that repair partial JSON run the tool with guessed arguments unless they "
            "check the stop reason first."
        ),
        fix=(
            "Keep `max_tokens`, never complete or re-label the call; raise the token limit if "
            "calls are routinely cut."
        ),
    ),
)


@INPUT_INVALID.on(RULE)
def check(c: AnthropicChecker, ev: Event, said: str, cut: bool) -> None:
    """A tool input that is not JSON because max_tokens cut the last block."""
    if cut:
        c.report(RULE, f"{said}: cut by max_tokens", ev)
