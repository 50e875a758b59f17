"""The moments of a Responses stream the S rules' checks subscribe to.

Each is called with the checker first (``ResponsesChecker``: its state, read through its
public properties), then what the moment names. The checker keeps the state and decides
what a moment is (an index no event added, a second ``.done``); the rule decides whether
and what to report.

Each moment is typed (:class:`~sseconform.rules.hooks.Moment`): strict mypy checks every
check subscribed to it, and every place the checker fires it, against its arguments.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.hooks import Hooks, Moment

if TYPE_CHECKING:
    from sseconform.rules.responses.state import Acc, Item, Part
    from sseconform.rules.responses.turn import LaneTurn
    from sseconform.sse.decoder import Event
    from sseconform.websocket.frames import Broken, Closed, Message

HOOKS = Hooks("responses")

UNTYPED: Moment[Any, [Event, dict[str, Any]]] = HOOKS.moment(
    "untyped",
    "(ev, obj): an event whose data is an object without a string `type`",
)
FOREIGN_EVENT: Moment[Any, [Event, str]] = HOOKS.moment(
    "foreign-event",
    "(ev, kind): an Anthropic Messages event type; nothing else is read",
)
EVENT_NAME: Moment[Any, [Event, str]] = HOOKS.moment(
    "event-name",
    "(ev, kind): the SSE `event:` line (ev.event) against the data's type",
)
EVENT: Moment[Any, [Event, dict[str, Any], str]] = HOOKS.moment(
    "event",
    "(ev, obj, kind): every typed event, before its sequence number",
)
RESUMED: Moment[Any, [Event, str]] = HOOKS.moment(
    "resumed",
    "(ev, said): the first event, of a stream read as resumed",
)
FIRST: Moment[Any, [Event, str]] = HOOKS.moment(
    "first",
    "(ev, kind): the first typed event, after `resumed`",
)
SEQUENCE: Moment[Any, [Event, Any, int | None]] = HOOKS.moment(
    "sequence",
    "(ev, n, last): a sequence_number that is not the last one plus one (n: the raw value, "
    "last: the previous number or None)",
)
ERROR_INVALID: Moment[Any, [Event, list[Any]]] = HOOKS.moment(
    "error-invalid",
    "(ev, errors): an `error` event's schema errors",
)
CHECKED: Moment[Any, [Event, dict[str, Any], str]] = HOOKS.moment(
    "checked",
    "(ev, obj, kind): every typed event, after its schema",
)
UNKNOWN_EVENT: Moment[Any, [Event, str]] = HOOKS.moment(
    "unknown-event",
    "(ev, kind): an event type no handler reads",
)
DONE_SENTINEL: Moment[Any, [Event]] = HOOKS.moment(
    "done-sentinel",
    "(ev): the first `data: [DONE]`",
)
UNRESOLVED: Moment[Any, [Event, str, int]] = HOOKS.moment(
    "unresolved",
    "(ev, kind, idx): an output_index no event added",
)
REF: Moment[Any, [Event, dict[str, Any], str, Item, bool]] = HOOKS.moment(
    "ref",
    "(ev, obj, kind, item, need_item): an event naming an item the stream has",
)
WRONG_TYPE: Moment[Any, [Event, str, str, Any, Any, str]] = HOOKS.moment(
    "wrong-type",
    "(ev, kind, what, got, want, pointer): an event about an item or part of another type "
    "(what: 'item', 'part' or 'part-on-item')",
)
PART_UNKNOWN: Moment[Any, [Event, str, str, int, Item]] = HOOKS.moment(
    "part-unknown",
    "(ev, kind, key, i, item): the first part index of an item no event added",
)
INDEX_REUSED: Moment[Any, [Event, int]] = HOOKS.moment(
    "index-reused",
    "(ev, idx): an output_item.added for an index already added",
)
ITEM_ADDED: Moment[Any, [Event, int, int, bool]] = HOOKS.moment(
    "item-added",
    "(ev, idx, expected, first_of_resumed): an output_item.added",
)
PART_SKIPPED: Moment[Any, [Event, str, int, Item, int]] = HOOKS.moment(
    "part-skipped",
    "(ev, key, i, item, expected): a part added at another index than the next",
)
DONE_AGAIN: Moment[Any, [Event, str, int | None]] = HOOKS.moment(
    "done-again",
    "(ev, kind, index): a second `.done` for the same item or part (index: the item's "
    "output_index, None for a part)",
)
ITEM_DONE: Moment[Any, [Event, Item, dict[str, Any], dict[str, str]]] = HOOKS.moment(
    "item-done",
    "(ev, item, got, values): an output_item.done, before the item is marked done (values: its "
    "streamed strings)",
)
PART_DONE: Moment[Any, [Event, str, Part, dict[str, Any], bool]] = HOOKS.moment(
    "part-done",
    "(ev, kind, part, got, summary): a part's `.done`, before its text is adopted",
)
DELTA: Moment[Any, [Event, str, Part]] = HOOKS.moment(
    "delta",
    "(ev, kind, part): a text delta for a part",
)
TEXT_DONE: Moment[Any, [Event, str, str, str, Acc]] = HOOKS.moment(
    "text-done",
    "(ev, kind, field, text, acc): a text's `.done`, before it is adopted",
)
BODY_DONE: Moment[Any, [Event, str, str, str, Acc]] = HOOKS.moment(
    "body-done",
    "(ev, kind, field, text, acc): a call's arguments' (or a tool's input's) `.done`, before it"
    " is adopted",
)
ARGUMENTS_TOO_LARGE: Moment[Any, [Event, str, str]] = HOOKS.moment(
    "arguments-too-large",
    "(ev, text, field): arguments over max_arguments, not parsed",
)
ARGUMENTS_INVALID: Moment[Any, [Event, str, str, bool]] = HOOKS.moment(
    "arguments-invalid",
    "(ev, said, pointer, cut): arguments that did not parse, once the terminal event says "
    "whether max_output_tokens cut them",
)
AUDIO_AFTER_DONE: Moment[Any, [Event, str, str]] = HOOKS.moment(
    "audio-after-done",
    "(ev, kind, prefix): the response's audio after its `.done`",
)
CREATED: Moment[Any, [Event, bool]] = HOOKS.moment(
    "created",
    "(ev, again): a response.created (again: one came before)",
)
RESPONSE_ID: Moment[Any, [Event, Any, Any]] = HOOKS.moment(
    "response-id",
    "(ev, rid, first): a response id other than the stream's first",
)
TERMINAL_AGAIN: Moment[Any, [Event, str]] = HOOKS.moment(
    "terminal-again",
    "(ev, kind): a terminal event after the first",
)
TERMINAL: Moment[Any, [Event, str, dict[str, Any]]] = HOOKS.moment(
    "terminal",
    "(ev, kind, response): the first terminal event with a response object",
)
END: Moment[Any, []] = HOOKS.moment(
    "end",
    "(): after the last event",
)


# -- a WebSocket session (rules/responses/session.py: SessionChecker) ------------------------
#: What the WebSocket mode adds, checked by the rules of the ``websocket`` invariant; each
#: turn's events go through :data:`HOOKS` too, as SSE events would.
WS_HOOKS = Hooks("responses")

WS_FRAME: Moment[Any, [Message]] = WS_HOOKS.moment(
    "ws-frame",
    "(msg): every server message and control frame, for its frame bits (masked, reserved)",
)
WS_MESSAGE: Moment[Any, [Message, dict[str, Any] | None]] = WS_HOOKS.moment(
    "ws-message",
    "(msg, obj): every server data message; obj None when it is not one JSON object",
)
WS_UNASKED: Moment[Any, [Message, dict[str, Any]]] = WS_HOOKS.moment(
    "ws-unasked",
    "(msg, obj): an event while no response.create waits for its answer",
)
WS_ERROR: Moment[Any, [Message, dict[str, Any]]] = WS_HOOKS.moment(
    "ws-error",
    "(msg, obj): an `error` event answering a response.create",
)
WS_TURN_END: Moment[Any, [LaneTurn]] = WS_HOOKS.moment(
    "ws-turn-end",
    "(turn): a turn's answer is over (its lane's next response.create, or the session's "
    "end): its event types and error events",
)
WS_LANE: Moment[Any, [Message, dict[str, Any], LaneTurn | None]] = WS_HOOKS.moment(
    "ws-lane",
    "(msg, obj, turn): an event whose stream_id names no lane asked for, or with none while "
    "the client named lanes (turn: the one it was taken for, None: none)",
)
WS_CLOSED: Moment[Any, [Closed]] = WS_HOOKS.moment(
    "ws-closed",
    "(closed): a Close frame (either way), or the TCP connection's end without one",
)
WS_BROKEN: Moment[Any, [Broken]] = WS_HOOKS.moment(
    "ws-broken",
    "(broken): the server's bytes cannot be read on as frames",
)
