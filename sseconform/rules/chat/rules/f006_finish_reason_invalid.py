"""F006 finish-reason-invalid: A finish_reason outside the set."""

from __future__ import annotations

from typing import Any

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.chat.hooks import HOOKS
from sseconform.rules.docs import RuleDoc
from sseconform.rules.native import NATIVE_FINISH_REASONS
from sseconform.rules.schema import CHUNK, SchemaViolation, value_at

RULE = define(
    "F006",
    "finish-reason-invalid",
    Severity.ERROR,
    FINAL_EMPTY_DELTA,
    "A finish_reason outside the set.",
    RuleDoc(
        what=(
            "finish_reason is a string outside {stop, length, tool_calls, content_filter, "
            "function_call} and not a known native value (those are N003)."
        ),
        why=(
            "Clients branch on the finish reason: run tools, warn about truncation, show a filter "
            "notice. An unknown value takes none of those branches. A made-up value such as "
            "`error` must not stand in for an error frame."
        ),
        clients=(
            "Beyond the matrix: Clients that validate the value reject the chunk; the "
            "others hand it to application code that matches none of its cases."
        ),
        fix=(
            "For an upstream failure, send an error frame, then [DONE]:\n"
            'data: {"error":{"message":"upstream failed","type":"server_error"}}\n'
            "\n"
            "data: [DONE]\n"
            "\n"
        ),
    ),
)


def finish_reason_at(name: str, path: tuple[str | int, ...]) -> bool:
    """Whether a violation is at a choice's ``finish_reason``."""
    return name == CHUNK and len(path) == 3 and path[0] == "choices" and path[2] == "finish_reason"


@HOOKS.claims(RULE)
def claim(name: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """A finish_reason that is none of OpenAI's (a provider's native one is N003's)."""
    if not finish_reason_at(name, v.path):
        return None
    value = value_at(obj, v.path)
    if isinstance(value, str) and value in NATIVE_FINISH_REASONS:
        return None
    return f"finish_reason {value!r} is not stop, length, tool_calls or content_filter"
