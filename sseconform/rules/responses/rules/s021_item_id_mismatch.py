"""S021 item-id-mismatch: `item_id` is not the id of the item at `output_index`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import REF

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.rules.responses.state import Item
    from sseconform.sse.decoder import Event

RULE = define(
    "S021",
    "item-id-mismatch",
    Severity.ERROR,
    "refs-resolve",
    "`item_id` is not the id of the item at `output_index`.",
    RuleDoc(
        what=(
            "An event's `item_id` differs from the `id` of the item added at its `output_index`."
        ),
        why=(
            "Events carry both references; clients key their state by one or the other, so they "
            "disagree about which item a delta belongs to."
        ),
        clients=(
            "openai-python: keys by `output_index` and is not affected. Clients keyed by "
            "`item_id` attach the delta to no part or to another one: OpenCode's AI SDK "
            "fails the turn (measured below)."
        ),
        fix="Repeat the added item's `id` as `item_id` in every event about it.",
    ),
)


@REF.on(RULE)
def check(
    c: ResponsesChecker, ev: Event, obj: dict[str, Any], kind: str, item: Item, need_item: bool
) -> None:
    """An item_id that is not the id of the item at the event's output_index."""
    item_id = obj.get("item_id")
    if isinstance(item_id, str) and item.id is not None and item_id != item.id:
        c.report(
            RULE,
            f"item_id {item_id!r}, but output_index {item.index} is item {item.id!r}",
            ev,
            "/item_id",
        )
