"""W016 multi-line-data: An event whose data spans several `data:` lines."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import MULTI_LINE_DATA

if TYPE_CHECKING:
    from sseconform.rules.base import Checker
    from sseconform.sse.decoder import Event


RULE = define(
    "W016",
    "multi-line-data",
    Severity.WARNING,
    None,
    "An event whose data spans several `data:` lines.",
    RuleDoc(
        what=(
            "A frame built from two or more `data:` lines; the lines are joined with a newline "
            "and the result is parsed as usual."
        ),
        why=(
            "Legal SSE, and JSON survives the join, but OpenAI sends one line per event, and "
            "consumers that read SSE line by line take each `data:` line for a whole chunk."
        ),
        clients=(
            "Beyond the matrix: A spec-following parser joins the lines and the JSON "
            "parses; hand-written consumers that parse each `data:` line on its own fail on the "
            "pieces."
        ),
        example=('data: {...,"choices":[{"index":0,\ndata: "delta":{"content":"Hi"}}]}\n\n'),
        fix=('data: {...,"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n'),
    ),
)


@MULTI_LINE_DATA.on(RULE)
def check(c: Checker, ev: Event) -> None:
    """An event whose data came on several `data:` lines (joined, as parsers do)."""
    c.report(RULE, f"data spread over {ev.data_lines} `data:` lines", ev)
