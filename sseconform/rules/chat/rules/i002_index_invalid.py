"""I002 index-invalid: A tool-call `index` is not an integer >= 0."""

from __future__ import annotations

from typing import Any

from sseconform.rules.catalog import STABLE_INDEX, Severity, define
from sseconform.rules.chat.hooks import HOOKS
from sseconform.rules.chat.rules.i001_index_missing import call_index_at
from sseconform.rules.docs import RuleDoc
from sseconform.rules.schema import SchemaViolation, missing_at, value_at

RULE = define(
    "I002",
    "index-invalid",
    Severity.ERROR,
    STABLE_INDEX,
    "A tool-call `index` is not an integer >= 0.",
    RuleDoc(
        what=(
            "A tool-call `index` is not an integer >= 0: a string, a float, a negative number or "
            "null."
        ),
        why=(
            'Clients key calls off `index`; `"0"` and `0` are different keys, and negative or '
            "fractional values cannot be list positions."
        ),
        clients=(
            "Beyond the matrix: Clients that validate chunks reject it; others may "
            "file the fragments under a key of their own and report an extra, nameless call."
        ),
        fix=(
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"n'
            'ame":"get_weather","arguments":""}}]}}\n'
            "\n"
        ),
    ),
)


@HOOKS.claims(RULE)
def claim(name: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """A tool-call index that is not an integer >= 0 (a missing one is I001's)."""
    if not call_index_at(name, v.path):
        return None
    if value_at(obj, v.path[:5]) is not None and missing_at(obj, v.path):
        return None
    return f"tool-call index {value_at(obj, v.path)!r} is not an integer >= 0"
