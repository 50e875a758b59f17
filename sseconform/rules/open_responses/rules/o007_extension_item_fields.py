"""O007 extension-item-fields: An extension item without its required id or status."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.open_responses.hooks import ITEM
from sseconform.rules.open_responses.spec import is_extension

if TYPE_CHECKING:
    from sseconform.rules.open_responses.checker import OpenResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "O007",
    "extension-item-fields",
    Severity.ERROR,
    "spec-extensions",
    "An extension item without its required id or status.",
    RuleDoc(
        what=(
            "An item whose type is an extension (`slug:type`) arrives without a string `id` or "
            "`status`. The specification's own items are checked by their schemas (O001)."
        ),
        why=(
            "Clients key items by id and show their state from status; an extension item "
            "without them cannot be tracked or finished."
        ),
        clients="Not a client's rule: the specification's.",
        fix=(
            "Give every extension item a stable `id` and a `status` (`in_progress`, "
            "`completed`, ...)."
        ),
        spec=(
            "Open Responses, § Extending Items (Required item fields): every item MUST have "
            "`id`, `type` and `status`."
        ),
    ),
)


@ITEM.on(RULE)
def check(c: OpenResponsesChecker, ev: Event, item: dict[str, Any], kind: str) -> None:
    """An extension item without a string id or status."""
    if not is_extension(kind):
        return
    missing = [f for f in ("id", "status") if not isinstance(item.get(f), str)]
    if missing:
        c.report(
            RULE,
            f"extension item {kind!r} without {' and '.join(missing)}",
            ev,
            "/item/" + missing[0],
        )
