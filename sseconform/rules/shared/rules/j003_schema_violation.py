"""J003 schema-violation: A frame violates its JSON Schema in `schemas/`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import SCHEMA_VIOLATION

if TYPE_CHECKING:
    from sseconform.rules.base import Checker
    from sseconform.sse.decoder import Event


RULE = define(
    "J003",
    "schema-violation",
    Severity.ERROR,
    None,
    "A frame violates its JSON Schema in `schemas/`.",
    RuleDoc(
        what=(
            "A frame breaks its JSON Schema (chunk, usage chunk or error frame) where no more "
            "specific rule applies: e.g. `created` is a string, `choices` or `delta` is missing, "
            "`delta.content` is a number, `function.arguments` is not a string, a tool-call "
            '`type` is not "function".'
        ),
        why=(
            "Clients are typed against OpenAI's schema; a field of the wrong type or a missing "
            "required field breaks the clients that validate and confuses the rest."
        ),
        clients=(
            "Depends on the field; no single shape was measured. The four AI SDK clients validate "
            "every chunk and fail the stream on a mismatch (measured for a leaked native frame "
            "and for `choices: null`); what the Python clients do depends on the field."
        ),
        fix=(
            'data: {...,"created":1714000000,"choices":[{"index":0,"delta":{"content":"42"}}]}\n\n'
        ),
    ),
)


@SCHEMA_VIOLATION.on(RULE)
def check(c: Checker, ev: Event, message: str, pointer: str) -> None:
    """A schema violation no grammar rule claims (a claimed one is its rule's finding)."""
    c.report(RULE, message, ev, pointer)
