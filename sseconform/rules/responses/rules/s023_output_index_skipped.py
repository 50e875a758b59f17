"""S023 output-index-skipped: An item added at an index other than the next."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import ITEM_ADDED

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S023",
    "output-index-skipped",
    Severity.WARNING,
    "refs-resolve",
    "An item added at an index other than the next.",
    RuleDoc(
        what=(
            "`response.output_item.added` names an `output_index` other than one above the highest "
            "so far (the first item is not 0, or an index is skipped)."
        ),
        why=(
            "`output_index` is the item's position in `response.output`; a hole means the terminal "
            "output and the stream disagree about positions."
        ),
        clients=(
            "openai-python: tolerates holes (it keys items by index) and read the measured "
            "case right; clients that index an array by `output_index` read a hole."
        ),
        fix='data: {"type":"response.output_item.added","output_index":0,...}\n\n',
    ),
)


@ITEM_ADDED.on(RULE)
def check(c: ResponsesChecker, ev: Event, idx: int, expected: int, first_of_resumed: bool) -> None:
    """An item added at another index than the next (a resumed stream's first may start later)."""
    if idx != expected and not first_of_resumed:
        c.report(RULE, f"output_index {idx} added, expected {expected}", ev, "/output_index")
