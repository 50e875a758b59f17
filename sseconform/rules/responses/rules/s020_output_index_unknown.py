"""S020 output-index-unknown: An event for an `output_index` never added."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import UNRESOLVED

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S020",
    "output-index-unknown",
    Severity.ERROR,
    "refs-resolve",
    "An event for an `output_index` never added.",
    RuleDoc(
        what=(
            "A delta, part, hosted-tool or `.done` event names an `output_index` no "
            "`response.output_item.added` opened (before it, or at all)."
        ),
        why=(
            "Deltas are attached to the item at their `output_index`; an item that was never added "
            "has nowhere to put them."
        ),
        clients=(
            'openai-python: `responses.stream()` raises RuntimeError ("Received a content '
            'event for output index 3 before receiving its output item").'
        ),
        fix=(
            "Send `response.output_item.added` for the index first; keep each item at the index it "
            "was added at."
        ),
    ),
)


@UNRESOLVED.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str, idx: int) -> None:
    """An event about an output_index the stream never added."""
    c.report(RULE, f"{kind} for output_index {idx}, never added", ev, "/output_index")
