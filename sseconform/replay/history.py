"""The replay upstream checks what comes back, as the provider does: the history a request
carries must hold the opaque state this upstream issued, unchanged, where the provider
verifies it. A request that fails is refused with the status, error type and message that
provider answers, so a gateway that lost or changed the state is refused here as it would
be in production, and its next turn fails the same way.

What each provider checks is its wire's (``Wire.check_history`` in ``sseconform.wires``:
signatures and redacted thinking for Messages, encrypted reasoning and response ids for
Responses, thought signatures for Gemini, tool messages paired with calls for chat); only
what a request's history holds is read (a first turn has none).

"Issued" is what the recordings being served hold: every signature, encrypted content and
response id in them (a recording is the provider's own answer, replayed).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sseconform.replay.plan import Loaded
from sseconform.replay.routing import MAX_PARSED, RequestBody
from sseconform.sse import SSEDecoder
from sseconform.wires import RETURNING_MARKS, by_dialect, known_dialect, refusal, tool_results
from sseconform.wires.base import Issued, Refusal
from sseconform.wires.state import EMBEDDED as THOUGHT
from sseconform.wires.state import StateFolder, sent_back

__all__ = ["Returned", "check_history", "issued_of", "returned", "returned_of"]

#: Bodies past this are not read for history: routing's own cap on what it parses as JSON
#: (a 16 MB array of empty objects costs half a gigabyte as Python objects).
MAX_READ = MAX_PARSED


def issued_of(recordings: Iterable[Loaded]) -> Issued:
    """The state the served recordings issued: each stream's state tokens, and what its wire
    verifies besides them."""
    out = Issued()
    # a session's issued state is its turns' (its own reads are WebSocket frames)
    for rec in (t for r in recordings for t in (r.turns if r.session is not None else [r])):
        if rec.dialect is None:
            continue
        folder, decoder = StateFolder(rec.dialect), SSEDecoder()
        data: list[str] = []
        for ev in decoder.feed(rec.body) + decoder.finish():
            folder.feed(ev.data, ev.frame, ev.offset)
            data.append(ev.data)
        by_dialect(rec.dialect).issue(out, rec.body, data)
        out.values |= folder.finish().values()
    return out


def check_history(
    dialect: str | None, body: RequestBody, issued: Issued | Callable[[], Issued]
) -> Refusal | None:
    """None when the request is one the provider accepts: its parameters (another wire's
    fields, then ``Wire.refuse``: :func:`wires.refusal`), then its history (or it has
    none). A body without the keys a history is made of (nearly every first turn) is not
    read for one, and ``issued`` given as a function is then not called: what the
    recordings issued is read from all of their bodies (seconds for tens of megabytes),
    once, by the first request that brings a history back."""
    if not known_dialect(dialect) or len(body.raw) > MAX_READ:
        return None
    wire = by_dialect(dialect)
    obj = body.obj
    refused = refusal(wire, obj) if obj is not None else None
    if refused is not None:
        return refused
    if not any(key in body.raw for key in wire.history_marks):
        return None
    obj = body.obj
    if obj is None:
        return None
    return wire.check_history(obj, issued() if callable(issued) else issued)


@dataclass(frozen=True)
class Returned:
    """What a request's history brought back, for ``gate`` to compare with what the
    gateway's client sent: the opaque state in it, and how many tool results."""

    values: frozenset[str]
    results: int


#: What a body must hold to bring back state or a tool result (a first turn holds none):
#: any wire's marks, and a signature carried in a call id.
_RETURNING = (*RETURNING_MARKS, THOUGHT.encode())
NOTHING = Returned(frozenset(), 0)


def returned(obj: dict[str, Any]) -> Returned:
    """The state and the tool results a request (parsed) holds."""
    return Returned(frozenset(sent_back(obj)), tool_results(obj))


def returned_of(body: RequestBody) -> Returned | None:
    """:func:`returned` of a request body (None: not a JSON object, or past
    :data:`MAX_READ`); a body without any key that holds either is not read."""
    if not any(mark in body.raw for mark in _RETURNING):
        return NOTHING
    if len(body.raw) > MAX_READ:
        return None
    obj = body.obj
    return returned(obj) if obj is not None else None
