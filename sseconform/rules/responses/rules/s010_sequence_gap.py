"""S010 sequence-gap: `sequence_number` skips values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import SEQUENCE

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S010",
    "sequence-gap",
    Severity.ERROR,
    "sequence-numbers",
    "`sequence_number` skips values.",
    RuleDoc(
        what=(
            "An event's `sequence_number` is more than one above the previous event's: events are "
            "missing in between. The first event sets the start (0 from OpenAI; a resumed stream "
            "starts later)."
        ),
        why=(
            "The numbers are the only evidence of events lost on the way (an annotation, a "
            "hosted-tool status, a delta), and resumption (`starting_after`) counts on them."
        ),
        clients=(
            "openai-python: does not look at the numbers while streaming; what the lost events "
            "carried is silently missing (a lost text delta: the streamed text lacks it while "
            "the final response has it)."
        ),
        fix="Forward every upstream event, in order; number a synthesised stream 0, 1, 2, ...",
    ),
)


@SEQUENCE.on(RULE)
def check(c: ResponsesChecker, ev: Event, n: Any, last: int | None) -> None:
    """A sequence_number past the next one: what lies between is missing."""
    if type(n) is int and last is not None and n > last + 1:
        c.report(
            RULE,
            f"sequence_number {n} after {last}: {n - last - 1} missing",
            ev,
            "/sequence_number",
        )
