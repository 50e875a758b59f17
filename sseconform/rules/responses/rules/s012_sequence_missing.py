"""S012 sequence-missing: An event without `sequence_number`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import SEQUENCE

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S012",
    "sequence-missing",
    Severity.WARNING,
    "sequence-numbers",
    "An event without `sequence_number`.",
    RuleDoc(
        what="An event has no `sequence_number` (reported once per stream).",
        why=(
            "OpenAI numbers every event; the numbers order events and let a client resume "
            "(`starting_after`)."
        ),
        clients=(
            "openai-python: reads the stream unchanged without numbers; resuming with "
            "`starting_after` compares against a missing number and fails."
        ),
        fix=(
            'data: {"type":"response.output_text.delta","delta":"Hi",...,"sequence_number":4}\n\n'
        ),
    ),
)


@SEQUENCE.on(RULE)
def check(c: ResponsesChecker, ev: Event, n: Any, last: int | None) -> None:
    """An event without sequence_number (said once: the rest follow from it)."""
    if n is None and c.first_time(RULE.code):
        c.report(RULE, "an event without sequence_number (first here)", ev)
