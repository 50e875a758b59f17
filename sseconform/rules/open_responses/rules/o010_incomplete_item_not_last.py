"""O010 incomplete-item-not-last: an incomplete item is not the last one."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.open_responses.hooks import ITEM_ADDED, TERMINAL

if TYPE_CHECKING:
    from sseconform.rules.open_responses.checker import OpenResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "O010",
    "incomplete-item-not-last",
    Severity.ERROR,
    "spec-order",
    "An item done as incomplete is not the last, or the response is not incomplete.",
    RuleDoc(
        what=(
            "An `output_item.done` with status `incomplete`, then another `output_item.added`, "
            "or a terminal event other than `response.incomplete`."
        ),
        why=(
            "An incomplete item means generation stopped there; an item after it, or a "
            "response that says completed, contradicts it, and a client cannot tell which to "
            "believe."
        ),
        clients="Not a client's rule: the specification's.",
        fix="End the response with `response.incomplete` right after an incomplete item.",
        spec=(
            "Open Responses, § Items are state machines: an item that ends `incomplete` MUST "
            "be the last item emitted, and the response MUST be `incomplete`."
        ),
    ),
)


@ITEM_ADDED.on(RULE)
def added_after(c: OpenResponsesChecker, ev: Event, obj: dict[str, Any]) -> None:
    """An item added after one was done as incomplete (said once per stream)."""
    if c.incomplete is None or not c.first_time("O010"):
        return
    at, idx = c.incomplete
    c.report(
        RULE,
        f"output_index {obj.get('output_index')} added after output_index {idx} was "
        f"done as incomplete (frame {at.frame}): an incomplete item must be the last",
        ev,
        "/output_index",
    )


@TERMINAL.on(RULE)
def ended_otherwise(c: OpenResponsesChecker, ev: Event, kind: str) -> None:
    """The response ends other than incomplete after an incomplete item."""
    if c.incomplete is None or kind == "response.incomplete" or not c.first_time("O010"):
        return
    at, idx = c.incomplete
    c.report(
        RULE,
        f"{kind} after output_index {idx} was done as incomplete (frame {at.frame}): "
        "the response must be incomplete too",
        ev,
        "/type",
    )
