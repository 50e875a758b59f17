"""S002 created-repeated: A second `response.created`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import CREATED

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S002",
    "created-repeated",
    Severity.WARNING,
    "created-first",
    "A second `response.created`.",
    RuleDoc(
        what="`response.created` arrives more than once in one stream.",
        why=(
            "One stream is one response; a second `response.created` usually means two upstream "
            "streams were spliced (a retry or failover inside a gateway)."
        ),
        clients=(
            "openai-python: reads past it (the text and final response were right in the "
            "measured case). Clients that act on `response.created` (the AI SDK emits its "
            "response metadata there, from its source) do so twice."
        ),
        fix=(
            "Send `response.created` once, first; `response.in_progress` (and `response.queued`) "
            "may follow."
        ),
    ),
)


@CREATED.on(RULE)
def check(c: ResponsesChecker, ev: Event, again: bool) -> None:
    """A response.created after one came."""
    if again:
        c.report(RULE, "a second response.created", ev)
