"""The moments of an Open Responses stream the O rules' checks subscribe to.

Each is called with the checker first (``OpenResponsesChecker``: the responses checker's
state, read through its public properties), then what the moment names.

Each moment is typed (:class:`~sseconform.rules.hooks.Moment`): strict mypy checks every
check subscribed to it, and every place the checker fires it, against its arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.hooks import Hooks, Moment

if TYPE_CHECKING:
    from sseconform.rules.responses.state import Part
    from sseconform.sse.decoder import Event

HOOKS = Hooks("open-responses")

EVENT: Moment[Any, [Event, dict[str, Any], str]] = HOOKS.moment(
    "event",
    "(ev, obj, kind): every event with a string type, after its sequence number",
)
EVENT_NAME: Moment[Any, [Event, str]] = HOOKS.moment(
    "event-name",
    "(ev, kind): the SSE `event:` line (ev.event) against the data's type",
)
ITEM: Moment[Any, [Event, dict[str, Any], str]] = HOOKS.moment(
    "item",
    "(ev, item, kind): an output_item.added or .done whose item's type is not one of the "
    "specification's, before the responses rules",
)
ITEM_ADDED: Moment[Any, [Event, dict[str, Any]]] = HOOKS.moment(
    "item-added",
    "(ev, obj): an output_item.added, after `item`",
)
PART_DONE: Moment[Any, [Event, dict[str, Any], Part | None]] = HOOKS.moment(
    "part-done",
    "(ev, obj, part): a content_part.done, before the responses rules; part is the part it "
    "names (None: not added)",
)
TEXT_DONE: Moment[Any, [Event, dict[str, Any], str, Part | None]] = HOOKS.moment(
    "text-done",
    "(ev, obj, kind, part): an output_text, refusal or reasoning `.done`, before the responses "
    "rules",
)
TERMINAL: Moment[Any, [Event, str]] = HOOKS.moment(
    "terminal",
    "(ev, kind): the first terminal event, after the responses rules",
)
END: Moment[Any, []] = HOOKS.moment(
    "end",
    "(): after the last event, after the responses rules",
)
