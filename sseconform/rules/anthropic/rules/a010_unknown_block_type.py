"""A010 unknown-block-type: A content block type the Messages API does not have."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.anthropic.hooks import BLOCK_START
from sseconform.rules.anthropic.invariants import DELTA_MATCHES_BLOCK
from sseconform.rules.anthropic.state import BLOCK_DELTAS
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A010",
    "unknown-block-type",
    Severity.WARNING,
    DELTA_MATCHES_BLOCK,
    "A content block type the Messages API does not have.",
    RuleDoc(
        what=(
            "A `content_block_start` whose `content_block.type` is none of the "
            "known ones (text, thinking, redacted_thinking, tool_use, "
            "server_tool_use, the server tool result blocks, MCP blocks, "
            "container_upload, compaction, fallback). Reported once per type; the "
            "block is otherwise accepted."
        ),
        why=(
            "Anthropic adds block types over time and clients are expected to skip "
            "unknown ones, but a type that is not Anthropic's is a gateway's "
            "invention no client can read. A warning: this list may lag behind the API."
        ),
        clients=(
            "@ai-sdk/anthropic fails the stream (AI_TypeValidationError). anthropic-python, "
            "@anthropic-ai/sdk and Claude Code skip the block."
        ),
        fix="Send only the Messages API's block types; map anything else to text.",
    ),
)


@BLOCK_START.on(RULE)
def check(c: AnthropicChecker, ev: Event, index: int, block: dict[str, Any], kind: str) -> None:
    """A block type the SDKs do not know (said once per type)."""
    if kind not in BLOCK_DELTAS and c.first_time(f"{RULE.code}:{kind}"):
        c.report(
            RULE,
            f"content block type {kind!r} is not one the SDKs know",
            ev,
            "/content_block/type",
        )
