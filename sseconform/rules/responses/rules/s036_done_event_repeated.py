"""S036 done-event-repeated: A `.done` sent twice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import DONE_AGAIN

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S036",
    "done-event-repeated",
    Severity.WARNING,
    "done-matches-deltas",
    "A `.done` sent twice.",
    RuleDoc(
        what="A second text, arguments, part or item `.done` for the same part or item.",
        why="Each part and item ends once; a second end is usually a replayed event.",
        clients=(
            "openai-python: reads past it (the measured case read right). Clients that emit an "
            "end-of-part event on it emit two."
        ),
        fix="Send each `.done` once.",
    ),
)


@DONE_AGAIN.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str, index: int | None) -> None:
    """A second `.done` for the same item, part or string."""
    if index is None:
        said = f"{kind} again for the same part"
    elif kind == "response.output_item.done":
        said = f"output_item.done again for output_index {index}"
    else:
        said = f"{kind} again for output_index {index}"
    c.report(RULE, said, ev)
