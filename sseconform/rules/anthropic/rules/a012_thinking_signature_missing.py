"""A012 thinking-signature-missing: A thinking block ends without a signature."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import BLOCK_STOP
from sseconform.rules.anthropic.invariants import DELTA_MATCHES_BLOCK
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.rules.anthropic.state import Block
    from sseconform.sse.decoder import Event

RULE = define(
    "A012",
    "thinking-signature-missing",
    Severity.WARNING,
    DELTA_MATCHES_BLOCK,
    "A thinking block ends without a signature.",
    RuleDoc(
        what=(
            "A `thinking` block reaches its `content_block_stop` with no "
            "`signature_delta` and no signature in its start."
        ),
        why=(
            "Anthropic sends a signature_delta just before a thinking block's "
            "stop; the signature must go back with the block in the next request "
            "(with tools, thinking blocks are sent back), and the API rejects a "
            "thinking block without one."
        ),
        clients=(
            "This turn reads fine in anthropic-python, @anthropic-ai/sdk, @ai-sdk/anthropic "
            "and Claude Code; the failure comes with the next request that sends the block "
            "back (not measured here)."
        ),
        fix=(
            "event: content_block_delta\n"
            'data: {"type":"content_block_delta","index":0,"delta":{"type":"signatu'
            're_delta","signature":"EqQB..."}}\n'
            "\n"
            "event: content_block_stop\n"
            'data: {"type":"content_block_stop","index":0}\n'
            "\n"
        ),
    ),
)


@BLOCK_STOP.on(RULE)
def check(c: AnthropicChecker, ev: Event, block: Block) -> None:
    """A thinking block that ends with no signature (in its start or a delta)."""
    if block.type == "thinking" and not block.signed:
        c.report(RULE, f"thinking block {block.index} ends without a signature", ev)
