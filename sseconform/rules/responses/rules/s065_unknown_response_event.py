"""S065 unknown-response-event: An event type this grammar does not know."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import UNKNOWN_EVENT

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S065",
    "unknown-response-event",
    Severity.INFO,
    "no-foreign-shapes",
    "An event type this grammar does not know.",
    RuleDoc(
        what=(
            "An event `type` that is none of the Responses event types the grammar knows (reported "
            "once per type). Its `output_index` and `item_id`, when present, are still checked."
        ),
        why=(
            "New event types appear with new tools; an unknown one is worth a look, not a failure."
        ),
        clients=(
            "openai-python: passes unknown types through as events; the stream helper ignores them."
        ),
        fix=(
            "Nothing to fix if the type is a new one from the upstream; otherwise translate it to "
            "a known event."
        ),
    ),
)


@UNKNOWN_EVENT.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str) -> None:
    """An event type this grammar does not know (said once per type)."""
    if c.first_time(RULE.code + ":" + kind):
        c.report(RULE, f"event type {kind!r} is not one this grammar knows", ev, "/type")
