"""Each wire's knowledge in one room: ``chat``, ``messages``, ``responses``, ``gemini``.

Everything one JSON format on the wire looks like lives in its module (``wires/base.py``
says what every wire is asked): how its stream folds into the whole answer, how the provider
checks a history, what a client sends on its next turn, which events carry output or state,
its finish and usage words. The job modules (replay, gate, inspect, record) keep their loops
and ask the wire, found here by any of its names; ``translate/<dialect>`` and
``rules/<grammar>/`` stay per wire where they are.
"""

from __future__ import annotations

from typing import Any

import orjson

from sseconform.wires.base import Assistant, Refusal, Whole, Wire, events
from sseconform.wires.chat import CHAT
from sseconform.wires.gemini import GEMINI
from sseconform.wires.messages import MESSAGES
from sseconform.wires.responses import RESPONSES

__all__ = [
    "ALL",
    "RETURNING_MARKS",
    "assistant_turn",
    "by_dialect",
    "by_endpoint",
    "by_grammar",
    "carries_token",
    "event_label",
    "event_type",
    "fold",
    "refusal",
    "tool_results",
]

#: The four, in report order.
ALL: tuple[Wire, ...] = (CHAT, MESSAGES, RESPONSES, GEMINI)
#: What a request body must hold to bring back state or a tool result, in any wire.
RETURNING_MARKS: tuple[bytes, ...] = tuple(dict.fromkeys(m for w in ALL for m in w.returning_marks))
#: Every wire's top-level request fields: one of them that a wire's own request has not is
#: another wire's, left in by a gateway (or its client), and refused by that wire's provider.
_ANY_FIELD = frozenset(f for w in ALL for f in w.request_fields)
_BY_DIALECT = {w.dialect: w for w in ALL}
_BY_ENDPOINT = {w.endpoint: w for w in ALL}
_BY_GRAMMAR = {w.grammar: w for w in ALL} | {"open-responses": RESPONSES}


def by_dialect(dialect: str | None) -> Wire:
    """The wire an upstream of ``dialect`` speaks; chat for one none knows (as OpenAI's is
    the format every other imitates)."""
    return _BY_DIALECT.get(dialect or "", CHAT)


def by_endpoint(endpoint: str) -> Wire:
    """The wire a gateway serves at ``endpoint``; chat for one none knows."""
    return _BY_ENDPOINT.get(endpoint, CHAT)


def by_grammar(grammar: str) -> Wire:
    """The wire whose streams ``grammar`` checks (a profile of one, such as
    open-responses, is its base's); chat for one none knows."""
    return _BY_GRAMMAR.get(grammar, CHAT)


def known_dialect(dialect: str | None) -> bool:
    return dialect in _BY_DIALECT


def fold(dialect: str | None, body: bytes) -> Whole:
    """The non-streaming answer a provider of ``dialect`` gives for this streamed body."""
    return by_dialect(dialect).fold(events(body))


def assistant_turn(endpoint: str, body: bytes, *, whole: bool = False) -> Assistant:
    """The assistant turn a client of ``endpoint`` reads out of the stream ``body`` (or, with
    ``whole``, out of the one object that answers a non-streaming call)."""
    if whole:
        try:
            obj = orjson.loads(body)
        except orjson.JSONDecodeError:  # no answer a client could read: no turn to send
            obj = None
        objs = [obj] if isinstance(obj, dict) else []
    else:
        objs = [data for _, data in events(body) if isinstance(data, dict)]
    return by_endpoint(endpoint).assistant_turn(objs)


def carries_token(data: str) -> bool:
    """Does this event carry generated output (text, reasoning, a refusal, tool arguments) in
    any wire? Role-only chunks, pings and metadata don't: time to first token is to the first
    meaningful delta. The event's shape says whose it is."""
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return isinstance(obj, dict) and carries_token_obj(obj)


def carries_token_obj(obj: dict[str, Any]) -> bool:
    """:func:`carries_token` of a parsed event."""
    kind = obj.get("type")
    if isinstance(kind, str):  # Anthropic, Responses
        return MESSAGES.carries_token(obj) or RESPONSES.carries_token(obj)
    if "choices" in obj:
        return CHAT.carries_token(obj)
    return GEMINI.carries_token(obj)


def event_label(name: str | None, data: str) -> tuple[str, bool]:
    """A short name for an event on a timeline, and whether it carries content (text,
    reasoning, a call's name or arguments): what time to first token waits for. A named
    event is its name (a tool block's start names the call); a typed one its type; an
    untyped one its wire's reading of it."""
    if name:
        return name[:40], name.endswith("delta") or name == "content_block_start"
    if data.strip() == "[DONE]":
        return "[DONE]", False
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return "not JSON", False
    if not isinstance(obj, dict):
        return "JSON", False
    kind = obj.get("type")
    if isinstance(kind, str):  # Anthropic or Responses events without an event: line
        return kind[:40], kind.endswith("delta")
    if "error" in obj:
        return "error", False
    if "choices" in obj:
        return CHAT.label(obj)
    return GEMINI.label(obj)


def event_type(data: str) -> str | None:
    """The ``type`` of a native event without a name line (Anthropic and Responses have
    both); ``candidates`` for Gemini's, ``error`` for an error object."""
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    if isinstance(obj, dict):
        kind = obj.get("type")
        if isinstance(kind, str):
            return kind
        if "candidates" in obj:
            return "candidates"
        if "error" in obj:
            return "error"
    return None


def tool_results(obj: dict[str, Any]) -> int:
    """Tool results a request (parsed, of any wire) carries, in each wire's shape."""
    return sum(w.tool_results(obj) for w in ALL)


def refusal(wire: Wire, obj: dict[str, Any]) -> Refusal | None:
    """What ``wire``'s provider refuses of a request (parsed) before its history: another
    wire's fields in it (:meth:`Wire.unknown_fields`), then its own clashes
    (:meth:`Wire.refuse`). A body without the wire's conversation key is a bare test
    request, never refused for its fields."""
    if wire.conversation in obj:
        foreign = [k for k in obj if k in _ANY_FIELD and k not in wire.request_fields]
        if foreign:
            refused = wire.unknown_fields(foreign)
            if refused is not None:
                return refused
    return wire.refuse(obj)
