"""S025 part-index-skipped: A part added at an index other than the next."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import PART_SKIPPED

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.rules.responses.state import Item
    from sseconform.sse.decoder import Event

RULE = define(
    "S025",
    "part-index-skipped",
    Severity.WARNING,
    "refs-resolve",
    "A part added at an index other than the next.",
    RuleDoc(
        what=(
            "`response.content_part.added` (or `reasoning_summary_part.added`) names an index "
            "other than the item's number of parts so far."
        ),
        why=(
            "Clients append parts to a list and then index it with `content_index`: a skipped "
            "index makes every later index point at the wrong part or past the end."
        ),
        clients=(
            "openai-python: appends the part to the item's content list, so `content_index` 1 "
            "names no part (deltas for it raise IndexError) and content 0 holds the part meant "
            "for 1."
        ),
        fix=(
            "data: "
            '{"type":"response.content_part.added","output_index":0,"content_index":0,...}\n\n'
        ),
    ),
)


@PART_SKIPPED.on(RULE)
def check(c: ResponsesChecker, ev: Event, key: str, i: int, item: Item, expected: int) -> None:
    """A part added at another index than the next."""
    c.report(
        RULE, f"{key} {i} added to output_index {item.index}, expected {expected}", ev, "/" + key
    )
