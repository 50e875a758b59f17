"""W015 empty-data: An event whose data is empty."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import EMPTY_DATA

if TYPE_CHECKING:
    from sseconform.rules.base import Checker
    from sseconform.sse.decoder import Event


RULE = define(
    "W015",
    "empty-data",
    Severity.ERROR,
    None,
    "An event whose data is empty.",
    RuleDoc(
        what=(
            "A dispatched frame whose data is the empty string: `data:` or `data: ` followed by a "
            "blank line."
        ),
        why="An empty event is not a chunk; clients that parse every event as JSON fail on it.",
        clients=(
            "Beyond the matrix: A spec-following parser dispatches the event with "
            "empty data, and parsing it as JSON raises: the same JSONDecodeError that empty "
            "events cause in openai-python and httpx-sse (openai-python #2722)."
        ),
        example=('data:\n\ndata: {...,"delta":{"content":"Hi"}}\n\n'),
        fix=(
            "Send nothing, or a comment if the aim is to keep the connection alive:\n"
            ": keep-alive\n"
            "\n"
            'data: {...,"delta":{"content":"Hi"}}\n'
            "\n"
        ),
    ),
)


@EMPTY_DATA.on(RULE)
def check(c: Checker, ev: Event) -> None:
    """An event whose data is the empty string."""
    c.report(RULE, "an event with empty data", ev)
