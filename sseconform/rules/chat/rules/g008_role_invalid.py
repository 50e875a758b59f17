"""G008 role-invalid: `role` is not `assistant`."""

from __future__ import annotations

from typing import Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import HOOKS
from sseconform.rules.docs import RuleDoc
from sseconform.rules.schema import CHUNK, SchemaViolation, value_at

RULE = define(
    "G008",
    "role-invalid",
    Severity.ERROR,
    None,
    "`role` is not `assistant`.",
    RuleDoc(
        what="`role` is present and is not `assistant` (a null role is allowed and ignored).",
        why=(
            "A streamed chat completion is always the assistant's turn; another value (Gemini's "
            "`model`, `tool`, `system`) is a translation bug, and a client that appends the "
            "message to the conversation sends that role back in its next request."
        ),
        clients=(
            "Beyond the matrix: Clients that validate the role against OpenAI's types "
            "reject the chunk; others keep the wrong role in the conversation."
        ),
        fix=('data: {...,"delta":{"role":"assistant","content":""}}\n\n'),
    ),
)


@HOOKS.claims(RULE)
def claim(name: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """A delta's role that is not 'assistant'."""
    p = v.path
    if name == CHUNK and len(p) == 4 and p[0] == "choices" and p[2] == "delta" and p[3] == "role":
        return f"role {value_at(obj, p)!r}, not 'assistant'"
    return None
