"""A007 blocks-overlap: A block starts while another is still open."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.anthropic.hooks import BLOCK_START
from sseconform.rules.anthropic.invariants import BLOCK_ORDER
from sseconform.rules.anthropic.state import indexes
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import TEXT_BLOCK, event

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A007",
    "blocks-overlap",
    Severity.WARNING,
    BLOCK_ORDER,
    "A block starts while another is still open.",
    RuleDoc(
        what=(
            "A `content_block_start` arrives while an earlier block has had no "
            "`content_block_stop`: blocks overlap and their deltas may interleave."
        ),
        why=(
            "Anthropic streams one block at a time, each closed before the next "
            "opens; clients that keep a single 'current block' mix up the content."
        ),
        clients=(
            "Not harmful to the measured clients: anthropic-python, @anthropic-ai/sdk, "
            "@ai-sdk/anthropic and Claude Code route interleaved deltas by index and read the "
            "content."
        ),
        fix=(
            "Close each block before the next:\n"
            + TEXT_BLOCK
            + event("content_block_start", '{"type":"content_block_start","index":1,...}')
        ),
    ),
)


@BLOCK_START.on(RULE)
def check(c: AnthropicChecker, ev: Event, index: int, block: dict[str, Any], kind: str) -> None:
    """A block started while another is open."""
    s = c.state
    if s.open and index not in s.open:
        c.report(RULE, f"block {index} starts while block {indexes(s.open)} is still open", ev)
