"""A029 delta-usage-missing: message_delta has no usage.output_tokens."""

from __future__ import annotations

from typing import Any

from sseconform.rules.anthropic.hooks import HOOKS
from sseconform.rules.anthropic.invariants import USAGE
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.schema import SchemaViolation, missing_at

RULE = define(
    "A029",
    "delta-usage-missing",
    Severity.ERROR,
    USAGE,
    "message_delta has no usage.output_tokens.",
    RuleDoc(
        what=(
            "A `message_delta` without a `usage` object, or whose usage has no "
            "`output_tokens`. Newer Claude Code releases read the final usage here "
            "(LiteLLM #24176)."
        ),
        why=(
            "The SDKs copy message_delta's cumulative usage into the message: the "
            "output token count comes only from here."
        ),
        clients=(
            "No usage: anthropic-python fails (AttributeError), @anthropic-ai/sdk fails "
            "(\"Cannot read properties of undefined (reading 'output_tokens')\"), "
            "@ai-sdk/anthropic fails (type validation). Usage without output_tokens: "
            "@ai-sdk/anthropic fails. Claude Code reads the answer."
        ),
        fix=(
            "event: message_delta\n"
            'data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_'
            'sequence":null},"usage":{"output_tokens":3}}\n'
            "\n"
        ),
    ),
)


@HOOKS.claims(RULE)
def claim(kind: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """message_delta's usage, or its output_tokens, missing."""
    if kind == "message_delta" and (
        v.pointer == "/usage" or (v.pointer == "/usage/output_tokens" and missing_at(obj, v.path))
    ):
        return f"message_delta has no usage.output_tokens ({v.message})"
    return None
