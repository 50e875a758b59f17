"""S022 output-index-reused: `output_item.added` for an index already added."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import INDEX_REUSED

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S022",
    "output-index-reused",
    Severity.ERROR,
    "refs-resolve",
    "`output_item.added` for an index already added.",
    RuleDoc(
        what="A second `response.output_item.added` with an `output_index` already in use.",
        why="Each output item has its own index; reusing one overwrites or merges two items.",
        clients=(
            'openai-python: `responses.stream()` raises RuntimeError ("Duplicate response '
            'output index 0.").'
        ),
        fix="Give each new item the next `output_index` (0, 1, 2, ...).",
    ),
)


@INDEX_REUSED.on(RULE)
def check(c: ResponsesChecker, ev: Event, idx: int) -> None:
    """An output_item.added for an index already added."""
    c.report(RULE, f"output_index {idx} added a second time", ev, "/output_index")
