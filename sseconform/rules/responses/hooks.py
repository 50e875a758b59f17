"""The moments of a Responses stream the S rules' checks subscribe to.

Each is called with the checker first (``ResponsesChecker``: its state, read through its
public properties), then what the moment names. The checker keeps the state and decides
what a moment is (an index no event added, a second ``.done``); the rule decides whether
and what to report.
"""

from sseconform.rules.hooks import Hooks

HOOKS = Hooks(
    "responses",
    {
        "untyped": "(ev, obj): an event whose data is an object without a string `type`",
        "foreign-event": "(ev, kind): an Anthropic Messages event type; nothing else is read",
        "event-name": "(ev, kind): the SSE `event:` line (ev.event) against the data's type",
        "event": "(ev, obj, kind): every typed event, before its sequence number",
        "resumed": "(ev, said): the first event, of a stream read as resumed",
        "first": "(ev, kind): the first typed event, after `resumed`",
        "sequence": "(ev, n, last): a sequence_number that is not the last one plus one "
        "(n: the raw value, last: the previous number or None)",
        "error-invalid": "(ev, errors): an `error` event's schema errors",
        "checked": "(ev, obj, kind): every typed event, after its schema",
        "unknown-event": "(ev, kind): an event type no handler reads",
        "done-sentinel": "(ev): the first `data: [DONE]`",
        "unresolved": "(ev, kind, idx): an output_index no event added",
        "ref": "(ev, obj, kind, item, need_item): an event naming an item the stream has",
        "wrong-type": "(ev, kind, what, got, want, pointer): an event about an item or part "
        "of another type (what: 'item', 'part' or 'part-on-item')",
        "part-unknown": "(ev, kind, key, i, item): the first part index of an item no event added",
        "index-reused": "(ev, idx): an output_item.added for an index already added",
        "item-added": "(ev, idx, expected, first_of_resumed): an output_item.added",
        "part-skipped": "(ev, key, i, item, expected): a part added at another index than the next",
        "done-again": "(ev, kind, index): a second `.done` for the same item or part (index: "
        "the item's output_index, None for a part)",
        "item-done": "(ev, item, got, values): an output_item.done, before the item is "
        "marked done (values: its streamed strings)",
        "part-done": "(ev, kind, part, got, summary): a part's `.done`, before its text is adopted",
        "delta": "(ev, kind, part): a text delta for a part",
        "text-done": "(ev, kind, field, text, acc): a text's `.done`, before it is adopted",
        "body-done": "(ev, kind, field, text, acc): a call's arguments' (or a tool's "
        "input's) `.done`, before it is adopted",
        "arguments-too-large": "(ev, text, field): arguments over max_arguments, not parsed",
        "arguments-invalid": "(ev, said, pointer, cut): arguments that did not parse, once "
        "the terminal event says whether max_output_tokens cut them",
        "audio-after-done": "(ev, kind, prefix): the response's audio after its `.done`",
        "created": "(ev, again): a response.created (again: one came before)",
        "response-id": "(ev, rid, first): a response id other than the stream's first",
        "terminal-again": "(ev, kind): a terminal event after the first",
        "terminal": "(ev, kind, response): the first terminal event with a response object",
        "end": "(): after the last event",
    },
)
