"""A003 block-not-started: A delta or stop for a block that was never started."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import UNKNOWN_BLOCK
from sseconform.rules.anthropic.invariants import BLOCK_ORDER
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import MESSAGE_END, MESSAGE_START, TEXT_BLOCK

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A003",
    "block-not-started",
    Severity.ERROR,
    BLOCK_ORDER,
    "A delta or stop for a block that was never started.",
    RuleDoc(
        what=(
            "A `content_block_delta` or `content_block_stop` names an `index` no "
            "`content_block_start` opened (reported once per index). LiteLLM's "
            "'Content block not found' is this shape."
        ),
        why=(
            "The block's type (text, tool_use, thinking) comes only with its "
            "start; a client has nowhere to put a delta for a block it does not have."
        ),
        clients=(
            "anthropic-python: IndexError (list index out of range). @anthropic-ai/sdk: "
            "\"Cannot read properties of undefined (reading 'type')\". @ai-sdk/anthropic: "
            "'text part 0 not found'. Claude Code: reports 'Content block not found' "
            "(malformed stream) and retries the request without streaming."
        ),
        fix=("Open every block first:\n" + MESSAGE_START + TEXT_BLOCK + MESSAGE_END),
    ),
)


@UNKNOWN_BLOCK.on(RULE)
def check(c: AnthropicChecker, ev: Event, index: int, what: str) -> None:
    """A delta or stop for a block never started (said once per index)."""
    if index >= c.state.next_index and c.first_time(f"{RULE.code}:{index}"):
        c.report(RULE, f"block {index} was never started (no content_block_start)", ev, "/index")
