"""A028 start-usage-missing: message_start's message has no usage object."""

from __future__ import annotations

from typing import Any

from sseconform.rules.anthropic.hooks import HOOKS
from sseconform.rules.anthropic.invariants import USAGE
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.schema import SchemaViolation

RULE = define(
    "A028",
    "start-usage-missing",
    Severity.ERROR,
    USAGE,
    "message_start's message has no usage object.",
    RuleDoc(
        what="`message_start.message.usage` is missing or not an object.",
        why=(
            "The SDKs build the message from message_start and write "
            "message_delta's counts into its usage; without it they fail at message_delta."
        ),
        clients=(
            "anthropic-python: AttributeError ('NoneType' object has no attribute "
            "'output_tokens'). @anthropic-ai/sdk: \"Cannot set properties of undefined "
            "(setting 'output_tokens')\". @ai-sdk/anthropic fails. Claude Code reads the "
            "answer."
        ),
        fix=(
            'data: {"type":"message_start","message":{"id":"msg_1",...,"content":[]'
            ',"usage":{"input_tokens":12,"output_tokens":1}}}\n'
            "\n"
        ),
    ),
)


@HOOKS.claims(RULE)
def claim(kind: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """message_start's usage object, missing."""
    if kind == "message_start" and v.pointer == "/message/usage":
        return f"message_start has no usage object ({v.message})"
    return None
