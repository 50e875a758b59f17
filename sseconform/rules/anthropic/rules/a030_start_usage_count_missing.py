"""A030 start-usage-count-missing: message_start's usage lacks input_tokens or output_tokens."""

from __future__ import annotations

from typing import Any

from sseconform.rules.anthropic.hooks import HOOKS
from sseconform.rules.anthropic.invariants import USAGE
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.schema import SchemaViolation, missing_at

RULE = define(
    "A030",
    "start-usage-count-missing",
    Severity.WARNING,
    USAGE,
    "message_start's usage lacks input_tokens or output_tokens.",
    RuleDoc(
        what=(
            "`message_start.message.usage` is an object without `input_tokens` or "
            "without `output_tokens`."
        ),
        why=(
            "Both counts are required in the API's Usage; clients that add them up "
            "(cost trackers, context budgets) get None."
        ),
        clients=(
            "anthropic-python, @anthropic-ai/sdk, @ai-sdk/anthropic and Claude Code read the "
            "answer; the missing count reads as None or undefined."
        ),
        fix=(
            "event: message_start\n"
            'data: {"type":"message_start","message":{...,"usage":{"input_tokens":1'
            '2,"output_tokens":1}}}\n'
            "\n"
        ),
    ),
)


@HOOKS.claims(RULE)
def claim(kind: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """A count missing from message_start's usage."""
    if (
        kind == "message_start"
        and v.pointer in ("/message/usage/input_tokens", "/message/usage/output_tokens")
        and missing_at(obj, v.path)
    ):
        return f"message_start's usage has no {v.pointer.rsplit('/', 1)[-1]}"
    return None
