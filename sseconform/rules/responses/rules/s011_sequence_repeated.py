"""S011 sequence-repeated: `sequence_number` repeats or goes back."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import SEQUENCE

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S011",
    "sequence-repeated",
    Severity.WARNING,
    "sequence-numbers",
    "`sequence_number` repeats or goes back.",
    RuleDoc(
        what="An event's `sequence_number` is equal to or below the previous event's.",
        why=(
            "A repeated number is a replayed event (or two streams interleaved); with "
            "`starting_after`, a client resuming at a cursor skips every event numbered at or "
            "below it."
        ),
        clients=(
            "openai-python: `responses.stream(..., starting_after=N)` drops events whose "
            "number is not above N, so events numbered backwards are lost on resume; without a "
            "cursor the numbers are not read."
        ),
        fix='data: {...,"sequence_number":1}\n\ndata: {...,"sequence_number":2}\n\n',
    ),
)


@SEQUENCE.on(RULE)
def check(c: ResponsesChecker, ev: Event, n: Any, last: int | None) -> None:
    """A sequence_number at or below the last one."""
    if type(n) is int and last is not None and n <= last:
        c.report(RULE, f"sequence_number {n} after {last}", ev, "/sequence_number")
