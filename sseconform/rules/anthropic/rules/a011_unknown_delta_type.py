"""A011 unknown-delta-type: A delta type the Messages API does not have."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import UNKNOWN_DELTA
from sseconform.rules.anthropic.invariants import DELTA_MATCHES_BLOCK
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

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


@UNKNOWN_DELTA.on(RULE)
def check(c: AnthropicChecker, ev: Event, kind: str) -> None:
    """A delta type the SDKs do not know (said once per type)."""
    if c.first_time(f"{RULE.code}:{kind}"):
        c.report(RULE, f"delta type {kind!r} is not one the SDKs know", ev, "/delta/type")
