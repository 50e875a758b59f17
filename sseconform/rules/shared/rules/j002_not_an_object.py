"""J002 not-an-object: An event's data is JSON but not an object."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import NOT_OBJECT

if TYPE_CHECKING:
    from sseconform.rules.base import Checker
    from sseconform.sse.decoder import Event


RULE = define(
    "J002",
    "not-an-object",
    Severity.ERROR,
    None,
    "An event's data is JSON but not an object.",
    RuleDoc(
        what=(
            'An event\'s data is JSON but not an object, e.g. `data: 42`, `data: "x"` or `data: '
            "[1]`."
        ),
        why=(
            "Clients expect an object with `choices` (or `error`); any other JSON value is "
            "neither a chunk nor an error."
        ),
        clients=(
            "Beyond the matrix: Clients that validate each chunk (the AI SDK does, as "
            "the leaked-native-frame measurement shows) reject it; clients that read `choices` "
            "from it fail with a type error."
        ),
        fix=('data: {...,"delta":{"content":"Hi"}}\n\n'),
    ),
)


@NOT_OBJECT.on(RULE)
def check(c: Checker, ev: Event, value: object) -> None:
    """Data that is JSON but not an object."""
    c.report(RULE, f"data is JSON {type(value).__name__}, not an object", ev)
