"""S029 part-left-open: An item done with parts never done."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import ITEM_DONE

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.rules.responses.state import Item
    from sseconform.sse.decoder import Event

RULE = define(
    "S029",
    "part-left-open",
    Severity.WARNING,
    "refs-resolve",
    "An item done with parts never done.",
    RuleDoc(
        what=(
            "`response.output_item.done` for an item one of whose content or summary parts never "
            "got its `content_part.done` (`reasoning_summary_part.done`)."
        ),
        why=(
            "Each part ends with its own `.done`; clients that close a text block on it leave the "
            "block open."
        ),
        clients=(
            "openai-python: does not need `content_part.done` (the measured case read right). "
            "Clients that end a text part on the part's `.done` never end it."
        ),
        fix=(
            'data: {"type":"response.output_text.done",...}\n\ndata: '
            '{"type":"response.content_part.done",...}\n\ndata: '
            '{"type":"response.output_item.done",...}\n\n'
        ),
    ),
)


@ITEM_DONE.on(RULE)
def check(
    c: ResponsesChecker, ev: Event, item: Item, got: dict[str, Any], values: dict[str, str]
) -> None:
    """An item done with parts still open (a part begun before a resumed stream may have
    been done before it too)."""
    open_parts = [i for i, p in enumerate(item.parts) if not p.done and not p.partial]
    open_summary = [i for i, p in enumerate(item.summary) if not p.done and not p.partial]
    if open_parts or open_summary:
        c.report(
            RULE,
            f"output_index {item.index} done with parts {open_parts or ''}"
            f"{' summary parts ' + str(open_summary) if open_summary else ''} never done",
            ev,
        )
