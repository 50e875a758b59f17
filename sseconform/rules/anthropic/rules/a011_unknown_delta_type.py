"""A011 unknown-delta-type: A delta type the Messages API does not have."""

from sseconform.rules.anthropic.invariants import DELTA_MATCHES_BLOCK
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "A011",
    "unknown-delta-type",
    Severity.WARNING,
    DELTA_MATCHES_BLOCK,
    "A delta type the Messages API does not have.",
    RuleDoc(
        what=(
            "A `content_block_delta` whose `delta.type` is not text_delta, "
            "input_json_delta, thinking_delta, signature_delta, citations_delta or "
            "compaction_delta. Reported once per type."
        ),
        why=(
            "A delta no client knows carries content no client shows. A warning: "
            "the API may add delta types before this list does."
        ),
        clients=(
            "@ai-sdk/anthropic fails the stream (AI_TypeValidationError). anthropic-python, "
            "@anthropic-ai/sdk and Claude Code skip the delta."
        ),
        fix=(
            "event: content_block_delta\n"
            'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_de'
            'lta","text":"Hi"}}\n'
            "\n"
        ),
    ),
)
