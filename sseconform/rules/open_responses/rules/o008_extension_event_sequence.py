"""O008 extension-event-sequence: An extension event without an integer sequence_number."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.open_responses.hooks import EVENT
from sseconform.rules.open_responses.spec import core_events, is_extension

if TYPE_CHECKING:
    from sseconform.rules.open_responses.checker import OpenResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "O008",
    "extension-event-sequence",
    Severity.ERROR,
    "spec-extensions",
    "An extension event without an integer sequence_number.",
    RuleDoc(
        what=(
            "An event whose type is an extension (`slug:type`) has no integer "
            "`sequence_number`. Whether the numbers go up is checked for every event (S010, "
            "S011)."
        ),
        why=(
            "Clients order events and find gaps by sequence number; an extension event without "
            "one cannot be placed."
        ),
        clients="Not a client's rule: the specification's.",
        fix='data: {"type":"acme:trace_event","span":"search","sequence_number":5}\n\n',
        spec=(
            "Open Responses, § Extending streaming events (Required fields for extended "
            "streaming events): `type` and a monotonically increasing `sequence_number`."
        ),
    ),
)


@EVENT.on(RULE)
def check(c: OpenResponsesChecker, ev: Event, obj: dict[str, Any], kind: str) -> None:
    """An extension event whose sequence_number is not an integer."""
    if kind in core_events() or not is_extension(kind):
        return
    if type(obj.get("sequence_number")) is not int:
        c.report(
            RULE,
            f"extension event {kind!r} without an integer sequence_number",
            ev,
            "/sequence_number",
        )
