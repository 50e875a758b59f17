"""U002 usage-choices-not-empty: The usage chunk's `choices` is not `[]`."""

from __future__ import annotations

from typing import Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import HOOKS
from sseconform.rules.docs import RuleDoc
from sseconform.rules.schema import USAGE, SchemaViolation

RULE = define(
    "U002",
    "usage-choices-not-empty",
    Severity.ERROR,
    None,
    "The usage chunk's `choices` is not `[]`.",
    RuleDoc(
        what="A frame with non-null `usage` whose `choices` is null or missing.",
        why=(
            "The usage chunk has `choices: []`; clients iterate `choices` on every chunk and a "
            "null there is not a list."
        ),
        clients=(
            "Measured with `choices: null`: ERR in the AI SDK (the finish reason flips to `error` "
            "and the usage is lost) and in the openai-python `.stream()` accumulator."
        ),
        fix=('data: {...,"choices":[],"usage":{...}}\n\n'),
    ),
)


@HOOKS.claims(RULE)
def claim(name: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """The usage chunk's `choices`, not `[]`."""
    if name == USAGE and v.path == ("choices",):
        return f"the usage chunk's choices must be [] ({v.message})"
    return None
