"""G001 object-not-chunk: `object` is not `chat.completion.chunk`."""

from __future__ import annotations

from typing import Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import HOOKS
from sseconform.rules.docs import RuleDoc
from sseconform.rules.schema import ERROR, SchemaViolation, missing_at, value_at

RULE = define(
    "G001",
    "object-not-chunk",
    Severity.ERROR,
    None,
    "`object` is not `chat.completion.chunk`.",
    RuleDoc(
        what=(
            "A chunk's `object` is not `chat.completion.chunk`: missing, empty, or another value "
            "such as `chat.completion.done`."
        ),
        why=(
            "Typed clients use `object` to tell chunks from other payloads. It happens in "
            "practice: Azure's first chunk has `object: \"\"`, Perplexity's last chunk "
            "`chat.completion.done`."
        ),
        clients=(
            "ERR in the openai-python `.stream()` accumulator: it drops every such chunk, then "
            "fails with an AssertionError. No other measured client broke on it."
        ),
        fix=(
            "data: "
            '{"id":"c1","object":"chat.completion.chunk",...,"choices":[{"index":0,"delta":{"conte'
            'nt":"Hi"}}]}\n'
            "\n"
        ),
    ),
)


@HOOKS.claims(RULE)
def claim(name: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """A chunk's `object`, missing or not 'chat.completion.chunk'."""
    if name == ERROR or v.path != ("object",):
        return None
    if missing_at(obj, v.path):
        return "no `object` field; it must be 'chat.completion.chunk'"
    return f"object is {value_at(obj, v.path)!r}, not 'chat.completion.chunk'"
