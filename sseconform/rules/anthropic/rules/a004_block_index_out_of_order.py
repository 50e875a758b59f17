"""A004 block-index-out-of-order: A block's index is not the next one (reused or skipped)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.anthropic.hooks import BLOCK_START
from sseconform.rules.anthropic.invariants import BLOCK_ORDER
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A004",
    "block-index-out-of-order",
    Severity.ERROR,
    BLOCK_ORDER,
    "A block's index is not the next one (reused or skipped).",
    RuleDoc(
        what=(
            "A `content_block_start` whose `index` is not the next in 0, 1, 2, "
            "...: an index used again for a new block, or one that skips ahead."
        ),
        why=(
            "Clients keep the blocks in a list and find a block by its index as "
            "the list position: a reused index overwrites or misroutes, a skipped "
            "one points past the end."
        ),
        clients=(
            "Reused index: anthropic-python, @anthropic-ai/sdk, @ai-sdk/anthropic and Claude "
            "Code all keep the wrong content (the tool call's input lands in the text block, "
            "the text is mixed up). Skipped index: anthropic-python raises IndexError, "
            "@anthropic-ai/sdk drops the text of the later block."
        ),
        fix=(
            "Number blocks in order, each its own index:\n"
            "event: content_block_start\n"
            'data: {"type":"content_block_start","index":1,"content_block":{"type":'
            '"tool_use",...}}\n'
            "\n"
        ),
    ),
)


@BLOCK_START.on(RULE)
def check(c: AnthropicChecker, ev: Event, index: int, block: dict[str, Any], kind: str) -> None:
    """A block started at another index than the next."""
    following = c.state.next_index
    if index < following:
        c.report(
            RULE, f"block index {index} is used again; the next block is {following}", ev, "/index"
        )
    elif index > following:
        c.report(RULE, f"block index {index}, but the next block is {following}", ev, "/index")
