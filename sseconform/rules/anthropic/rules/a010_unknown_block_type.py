"""A010 unknown-block-type: A content block type the Messages API does not have."""

from sseconform.rules.anthropic.invariants import DELTA_MATCHES_BLOCK
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

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
