"""N003 native-finish-reason: A native finish reason leaked."""

from __future__ import annotations

from typing import Any

from sseconform.providers import NATIVE_FINISH
from sseconform.rules.catalog import NO_NATIVE_LEAK, Severity, define
from sseconform.rules.chat.hooks import HOOKS
from sseconform.rules.chat.rules.f006_finish_reason_invalid import finish_reason_at
from sseconform.rules.docs import RuleDoc
from sseconform.rules.native import NATIVE_FINISH_REASONS
from sseconform.rules.schema import SchemaViolation, value_at

RULE = define(
    "N003",
    "native-finish-reason",
    Severity.ERROR,
    NO_NATIVE_LEAK,
    "A native finish reason leaked.",
    RuleDoc(
        what=(
            "finish_reason is a native value: Anthropic's (end_turn, stop_sequence, max_tokens, "
            "tool_use, pause_turn, refusal), Gemini's (STOP, MAX_TOKENS, SAFETY, RECITATION, ...) "
            "or the Responses API's (completed, incomplete, max_output_tokens)."
        ),
        why=(
            "Clients compare finish_reason with OpenAI's values and a native one matches none: "
            "after `tool_use` they do not run the calls, after `max_tokens` they miss the "
            "truncation."
        ),
        clients=(
            "Beyond the matrix: Clients that validate the value reject the chunk; the "
            "others hand an unknown reason to application code."
        ),
        fix=(
            "Map it: end_turn, stop_sequence, STOP -> stop; max_tokens, MAX_TOKENS -> length; "
            "tool_use -> tool_calls; refusal, SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, "
            "SPII -> content_filter:\n"
            'data: {...,"delta":{},"finish_reason":"tool_calls"}\n'
            "\n"
        ),
    ),
)


@HOOKS.claims(RULE)
def claim(name: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """A provider's native finish reason, untranslated."""
    if not finish_reason_at(name, v.path):
        return None
    value = value_at(obj, v.path)
    if not isinstance(value, str) or value not in NATIVE_FINISH_REASONS:
        return None
    to = NATIVE_FINISH.get(value)
    hint = f"; map it to {to!r}" if to else ""
    return f"native finish_reason {value!r}{hint}"
