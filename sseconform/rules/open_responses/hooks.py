"""The moments of an Open Responses stream the O rules' checks subscribe to.

Each is called with the checker first (``OpenResponsesChecker``: the responses checker's
state, read through its public properties), then what the moment names.
"""

from sseconform.rules.hooks import Hooks

HOOKS = Hooks(
    "open-responses",
    {
        "event": "(ev, obj, kind): every event with a string type, after its sequence number",
        "event-name": "(ev, kind): the SSE `event:` line (ev.event) against the data's type",
        "item": "(ev, item, kind): an output_item.added or .done whose item's type is not "
        "one of the specification's, before the responses rules",
        "item-added": "(ev, obj): an output_item.added, after `item`",
        "part-done": "(ev, obj, part): a content_part.done, before the responses rules; part "
        "is the part it names (None: not added)",
        "text-done": "(ev, obj, kind, part): an output_text, refusal or reasoning `.done`, "
        "before the responses rules",
        "terminal": "(ev, kind): the first terminal event, after the responses rules",
        "end": "(): after the last event, after the responses rules",
    },
)
