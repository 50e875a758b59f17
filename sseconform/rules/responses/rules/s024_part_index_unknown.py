"""S024 part-index-unknown: A `content_index` or `summary_index` never added."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import PART_UNKNOWN

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.rules.responses.state import Item
    from sseconform.sse.decoder import Event

RULE = define(
    "S024",
    "part-index-unknown",
    Severity.ERROR,
    "refs-resolve",
    "A `content_index` or `summary_index` never added.",
    RuleDoc(
        what=(
            "A text delta, `.done`, annotation or part `.done` names a content part (or reasoning "
            "summary part) its item never added with `response.content_part.added` "
            "(`response.reasoning_summary_part.added`)."
        ),
        why=(
            "Text is appended to the part at the index; a part that was never added has nowhere to "
            "put it."
        ),
        clients=(
            "openai-python: `responses.stream()` raises IndexError (list index out of range) "
            "at the first delta."
        ),
        fix=(
            'Send `response.content_part.added` (`"part":{"type":"output_text","text":""}`) before '
            "the first delta of the part."
        ),
    ),
)


@PART_UNKNOWN.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str, key: str, i: int, item: Item) -> None:
    """An event about a part its item never added (said once per item)."""
    c.report(
        RULE,
        f"{kind} for {key} {i} of output_index {item.index}, never added "
        "(later events for this item's missing parts are not repeated)",
        ev,
        "/" + key,
    )
