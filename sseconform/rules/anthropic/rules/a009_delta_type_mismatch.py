"""A009 delta-type-mismatch: A delta that does not belong to its block's type."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import DELTA_MISMATCH
from sseconform.rules.anthropic.invariants import DELTA_MATCHES_BLOCK
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.rules.anthropic.state import Block
    from sseconform.sse.decoder import Event

RULE = define(
    "A009",
    "delta-type-mismatch",
    Severity.ERROR,
    DELTA_MATCHES_BLOCK,
    "A delta that does not belong to its block's type.",
    RuleDoc(
        what=(
            "A known delta type inside a known block type it does not belong to: "
            "text_delta and citations_delta go to text blocks, input_json_delta to "
            "tool_use, server_tool_use and mcp_tool_use, thinking_delta and "
            "signature_delta to thinking, compaction_delta to compaction; result "
            "blocks and redacted_thinking take none. Reported once per block. "
            "Thinking deltas streamed inside a text block is the LiteLLM #32357 shape."
        ),
        why=(
            "Clients dispatch a delta by the block it names: a mismatched delta is "
            "dropped or breaks the client."
        ),
        clients=(
            "Thinking in a text block: @ai-sdk/anthropic fails ('reasoning part 0 not found') "
            "and Claude Code reports an unreadable stream event and retries without streaming; "
            "anthropic-python and @anthropic-ai/sdk silently drop the thinking. Text in a "
            "tool_use block: the same two fail, the SDKs drop the text."
        ),
        fix=(
            "Stream thinking in a thinking block of its own:\n"
            "event: content_block_start\n"
            'data: {"type":"content_block_start","index":0,"content_block":{"type":'
            '"thinking","thinking":"","signature":""}}\n'
            "\n"
            "event: content_block_delta\n"
            'data: {"type":"content_block_delta","index":0,"delta":{"type":"thinkin'
            'g_delta","thinking":"..."}}\n'
            "\n"
        ),
    ),
)


@DELTA_MISMATCH.on(RULE)
def check(c: AnthropicChecker, ev: Event, kind: str, block: Block) -> None:
    """A delta of a type its block does not take (said once per block)."""
    c.report(RULE, f"a {kind} in block {block.index}, a {block.type} block", ev, "/delta/type")
