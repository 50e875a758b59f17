"""I001 index-missing: A tool-call delta has no `index`."""

from __future__ import annotations

from typing import Any

from sseconform.rules.catalog import STABLE_INDEX, Severity, define
from sseconform.rules.chat.hooks import HOOKS
from sseconform.rules.docs import RuleDoc
from sseconform.rules.schema import CHUNK, SchemaViolation, missing_at, value_at

RULE = define(
    "I001",
    "index-missing",
    Severity.ERROR,
    STABLE_INDEX,
    "A tool-call delta has no `index`.",
    RuleDoc(
        what="A `tool_calls` entry has no `index` (Mistral-style whole calls).",
        why=(
            "Clients key tool-call deltas off `index`, not `id` (invariant 2); without it they "
            "cannot tell which call a delta belongs to."
        ),
        clients=(
            "Measured with whole arguments and no `index`: ERR in the openai-python `.stream()` "
            "accumulator and in `@ai-sdk/openai`."
        ),
        fix=(
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"n'
            'ame":"get_weather","arguments":"{}"}}]}}\n'
            "\n"
        ),
    ),
)


def call_index_at(name: str, path: tuple[str | int, ...]) -> bool:
    """Whether a violation is at a tool-call delta's ``index``."""
    return (
        name == CHUNK
        and len(path) == 6
        and path[0] == "choices"
        and path[3] == "tool_calls"
        and path[5] == "index"
    )


@HOOKS.claims(RULE)
def claim(name: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """A tool-call delta without its index."""
    if (
        call_index_at(name, v.path)
        and value_at(obj, v.path[:5]) is not None
        and missing_at(obj, v.path)
    ):
        return "a tool-call delta without `index`"
    return None
