"""A recording as its provider answers what a request asked, so a gateway that drops a
part of the client's request fails on both ends: the request (``request:lost``) and the
answer.

- :func:`unthought`, for a request that did not ask to see the thinking: Anthropic sends no
  thinking blocks unless ``thinking`` is on, Gemini no thought parts unless
  ``includeThoughts``; a request that turned reasoning off gets none on any wire.
- :func:`uncached`, for a request the provider does not read from its prompt cache:
  Anthropic reads only up to a ``cache_control`` breakpoint, so without one the usage counts
  every prompt token as input and no cache read or write.

Each event goes through its wire's filter (:meth:`~sseconform.wires.base.Wire.unthinking`,
:meth:`~sseconform.wires.base.Wire.uncaching`); an event it keeps as it was keeps its
bytes, a changed one is written again in the recording's framing; each is sent at the time
its last byte was recorded.
"""

from __future__ import annotations

import bisect
import dataclasses

import orjson

from sseconform.replay.plan import Loaded
from sseconform.sse import SSEDecoder
from sseconform.wires import by_dialect, known_dialect
from sseconform.wires.base import EventFilter

__all__ = ["filtered", "uncached", "unthought"]


def unthought(rec: Loaded) -> Loaded | None:
    """``rec`` without its thinking; None when it has none to leave out (or is not a
    stream of a wire that shows thinking)."""
    if rec.whole or not known_dialect(rec.dialect):
        return None
    return filtered(rec, by_dialect(str(rec.dialect)).unthinking())


def uncached(rec: Loaded) -> Loaded | None:
    """``rec`` with its prompt read whole, not from a cache; None when it counts no cache
    read or write (or its wire caches whatever the request says)."""
    if rec.whole or not known_dialect(rec.dialect):
        return None
    return filtered(rec, by_dialect(str(rec.dialect)).uncaching())


def filtered(rec: Loaded, keep: EventFilter | None) -> Loaded | None:
    """``rec`` with each event through ``keep``; None when no event changed."""
    if keep is None:
        return None
    body = rec.body
    ends, times, at = [], [], 0
    for t, data in rec.reads:
        at += len(data)
        ends.append(at)
        times.append(t)
    reads: list[tuple[float, bytes]] = []
    changed, start = False, 0
    dec = SSEDecoder()
    for ev in dec.feed(body) + dec.finish():
        # what came before the event's own lines (a comment, a keepalive) is always sent
        before, raw, start = body[start : ev.offset], body[ev.offset : ev.end], ev.end
        t = times[min(bisect.bisect_left(ends, ev.end), len(times) - 1)]
        try:
            obj = orjson.loads(ev.data)
        except orjson.JSONDecodeError:
            obj = None
        kept = keep(obj) if isinstance(obj, dict) else obj
        if kept is obj:
            reads.append((t, before + raw))
            continue
        changed = True
        if kept is None:
            if before:
                reads.append((t, before))
            continue
        nl = b"\r\n" if raw.endswith(b"\r\n\r\n") else b"\n"  # the recording's framing
        name = f"event: {ev.event}".encode() + nl if ev.event else b""
        reads.append((t, before + name + b"data: " + orjson.dumps(kept) + nl + nl))
    if not changed:
        return None
    if start < len(body):  # what follows the last event (a cut one) as it came
        reads.append((times[-1], body[start:]))
    return dataclasses.replace(rec, reads=reads)
