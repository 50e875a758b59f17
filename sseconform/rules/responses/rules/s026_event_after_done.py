"""S026 event-after-done: An event for an item already done."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import DELTA, REF

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.rules.responses.state import Item, Part
    from sseconform.sse.decoder import Event

RULE = define(
    "S026",
    "event-after-done",
    Severity.ERROR,
    "refs-resolve",
    "An event for an item already done.",
    RuleDoc(
        what=(
            "A delta, part, `.done` or hosted-tool event for an output item after its "
            "`response.output_item.done` (or a text delta for a part after its "
            "`content_part.done`)."
        ),
        why=(
            "`output_item.done` is the item's final state: what comes after it is not part of it."
        ),
        clients=(
            "openai-python: appends the late delta to the streamed text (the measured stream "
            "showed 'Hello, world! again') while the final response keeps the done item: what "
            "was shown and what was stored differ."
        ),
        fix="Send every event of an item before its `response.output_item.done`.",
    ),
)


@REF.on(RULE)
def check(
    c: ResponsesChecker, ev: Event, obj: dict[str, Any], kind: str, item: Item, need_item: bool
) -> None:
    """An event about an item already done (one that only an open item may have)."""
    if need_item and item.done:
        c.report(RULE, f"{kind} for output_index {item.index}, already done", ev, "/output_index")


@DELTA.on(RULE)
def check_delta(c: ResponsesChecker, ev: Event, kind: str, part: Part) -> None:
    """A text delta for a part already done."""
    if part.done:
        c.report(RULE, f"{kind} for a part already done", ev)
