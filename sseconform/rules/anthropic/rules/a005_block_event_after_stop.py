"""A005 block-event-after-stop: A delta or a second stop for a block already stopped."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import UNKNOWN_BLOCK
from sseconform.rules.anthropic.invariants import BLOCK_ORDER
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import BLOCK_START, BLOCK_STOP, text_delta

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A005",
    "block-event-after-stop",
    Severity.ERROR,
    BLOCK_ORDER,
    "A delta or a second stop for a block already stopped.",
    RuleDoc(
        what=(
            "A `content_block_delta` or `content_block_stop` for an index whose "
            "`content_block_stop` was already sent (reported once per index)."
        ),
        why=(
            "content_block_stop tells the client the block is complete: it emits "
            "the text part's end or the finished tool call. Content after it is "
            "lost or breaks the client's state."
        ),
        clients=(
            "Delta after stop: @ai-sdk/anthropic fails ('text part 0 not found') and Claude "
            "Code treats the stream as broken and retries; anthropic-python and "
            "@anthropic-ai/sdk append it. A repeated stop: Claude Code retries; the SDKs "
            "ignore it."
        ),
        fix=(
            "Send all of a block's deltas before its stop, and stop it once:\n"
            + BLOCK_START
            + text_delta("Hi") * 2
            + BLOCK_STOP
        ),
    ),
)


@UNKNOWN_BLOCK.on(RULE)
def check(c: AnthropicChecker, ev: Event, index: int, what: str) -> None:
    """A delta or stop for a block already stopped (said once per index)."""
    if index < c.state.next_index and c.first_time(f"{RULE.code}:{index}"):
        c.report(RULE, f"a {what} for block {index} after its content_block_stop", ev, "/index")
