"""The byte lane below ``check`` and ``translate``: plain delta events taken from the bytes.

A :class:`Lane` cuts reads into events on their blank lines, with a carry of the partial
event. A run of events that fit the user's template (``template.py``) goes to the user,
which does with it what it does with a delta (``check`` adds the values where the last one
went, ``translate`` writes them out); every other event goes, in order, to the user's slow
path (the decoder). The decoder is told what the lane read (``SSEDecoder.advance``: bytes,
lines and events, only between events), so every later place and frame number is true.
"""

from __future__ import annotations

import re
from typing import Protocol

from sseconform.sse.decoder import SSEDecoder
from sseconform.sse.template import Run, Template

__all__ = ["Lane", "LaneUser", "Waste"]


class Waste:
    """Templates in a row that no event used: past ``limit`` of them, only one candidate in
    ``every`` is made one (a stream whose every delta also differs elsewhere, a counter, log
    probabilities: each cut costs a probe parse and none would be used)."""

    __slots__ = ("every", "limit", "passed", "wasted")

    LIMIT = 8
    EVERY = 64

    def __init__(self, limit: int = LIMIT, every: int = EVERY) -> None:
        self.limit = limit
        self.every = every
        self.wasted = 0  # templates in a row that no event used
        self.passed = 0  # candidates not made templates since then

    def dropped(self, used: bool) -> None:
        """A template goes: used by an event, or not."""
        self.wasted = 0 if used else self.wasted + 1

    def worth(self) -> bool:
        """Whether to cut the next candidate."""
        if self.wasted < self.limit:
            return True
        self.passed += 1
        return self.passed % self.every == 0


# -- the lane: reads split into events, runs to the user, the rest to the decoder -------------


class LaneUser(Protocol):
    """What a lane's user does: ``check``'s checker, ``translate``'s writer."""

    def lane_template(self) -> Template | None:
        """The template events may be matched against now (None: none may)."""
        ...

    def lane_take(self, run: Run) -> int:
        """Take the first of a run of events that fit the template, as the slow path would,
        in order: how many it took; those it did not take, it did not touch."""
        ...

    def lane_took(self, n: int, last: bytes) -> None:
        """The lane took ``n`` events (the decoder has been told); ``last`` is the last one,
        without its blank line."""
        ...

    def lane_slow(self, data: bytes) -> None:
        """Bytes for the decoder, and the events they complete for the slow path."""
        ...


#: The first line end: LF, CRLF, or a CR that is not (yet) followed by anything.
_EOL = re.compile(rb"\n|\r\n|\r(?=[^\n])")


class Lane:
    """Reads cut into events on their blank lines, with a carry of the partial event: runs
    that fit the user's template go to the user (``lane_take``), every other event, in order,
    to its slow path (``lane_slow``). Only events in the plain form, between events (the
    decoder holds nothing), ever go the fast way.

    Events end with LF (``crlf``: or all with CRLF, as Gemini writes them, which the first
    line end says). Any other carriage return hands the rest of the body to the slow path
    alone (``off``)."""

    __slots__ = (
        "carry", "carry_max", "crlf", "dec", "eol", "limit", "off", "patience", "sep",
        "seplen", "user", "window",
    )  # fmt: skip

    #: The most bytes cut into events at once (a larger read goes in such pieces).
    WINDOW = 64 * 1024
    #: Bytes of a partial event held back before the decoder takes them.
    CARRY = 64 * 1024
    #: Slow events in a row, with no template, before the rest of a piece goes slow at once.
    PATIENCE = 32

    def __init__(
        self,
        dec: SSEDecoder,
        user: LaneUser,
        *,
        limit: int,
        crlf: bool = False,
        window: int = WINDOW,
        carry_max: int = CARRY,
        patience: int = PATIENCE,
    ) -> None:
        self.dec = dec
        self.user = user
        self.limit = limit  # the largest event taken (the decoder's limits are the slow path's)
        self.crlf = crlf
        self.window = window
        self.carry_max = carry_max
        self.patience = patience
        self.off = False  # a carriage return the lane does not read: the slow path alone
        self.sep = b""  # the blank line that ends an event, once known
        self.seplen = 0
        self.eol = b"\n"
        self.carry = b""  # the partial event, not yet seen by the decoder

    def feed(self, data: bytes) -> None:
        """The next bytes of the body."""
        if self.off:
            self.user.lane_slow(data)
            return
        if not self.sep:
            self._sniff(self.carry + data)
        if self.off or (self.seplen == 2 and b"\r" in data):
            self.off = True
            data, self.carry = self.carry + data, b""
            self.user.lane_slow(data)
            return
        window = self.window
        for k in range(0, len(data), window):
            self._cut(data[k : k + window] if len(data) > window else data)

    def close(self) -> bytes:
        """The end of the body: the carry, which the user's end reads."""
        carry, self.carry = self.carry, b""
        return carry

    def _sniff(self, data: bytes) -> None:
        """The first line end says which blank line ends events."""
        m = _EOL.search(data)
        if m is None:
            self.off = not self.crlf and b"\r" in data
        elif m.group() == b"\n":
            self.sep, self.seplen = b"\n\n", 2
        elif m.group() == b"\r\n" and self.crlf:
            self.sep, self.seplen, self.eol = b"\r\n\r\n", 4, b"\r\n"
        else:
            self.off = True

    def _cut(self, data: bytes) -> None:
        buf = self.carry + data if self.carry else data
        self.carry = b""
        dec, user, sep, seplen = self.dec, self.user, self.sep, self.seplen
        if not sep:  # no line end yet: none in ``buf`` (nor a CR but maybe at its end)
            keep = len(buf) if len(buf) <= self.carry_max else int(buf.endswith(b"\r"))
            if keep < len(buf):  # too long to hold: the decoder's, but a CR that may be CRLF
                user.lane_slow(buf[: len(buf) - keep])
            self.carry = buf[len(buf) - keep :]
            return
        if not dec.at_boundary():  # in an event (a long line, a long event): the decoder's
            end = buf.find(sep)
            if end < 0:
                user.lane_slow(buf)
                return
            user.lane_slow(buf[: end + seplen])
            buf = buf[end + seplen :]
        at = 0  # where the next event starts in buf
        slow = 0
        while True:
            t = user.lane_template()
            if t is not None and dec.at_boundary():
                run = t.take(buf, at, self.limit)
                taken = user.lane_take(run) if run.n else 0
                if taken:
                    size = run.size if taken == run.n else None
                    if size is None:
                        size = _events_size(buf, at, taken, sep)
                    end = at + size
                    dec.advance(size, taken * t.lines, taken)
                    last = buf.rfind(sep, at, end - seplen)  # the blank line before the last
                    user.lane_took(taken, buf[at if last < 0 else last + seplen : end - seplen])
                    at = end
                    slow = 0
                    continue
            end = buf.find(sep, at)
            if end < 0:
                break
            slow += 1
            if slow > self.patience and t is None:  # no template for a while
                stop = buf.rfind(sep) + seplen
                user.lane_slow(buf[at:stop])
                at = stop
                break
            user.lane_slow(buf[at : end + seplen])
            at = end + seplen
        self._hold(buf[at:])

    def _hold(self, tail: bytes) -> None:
        """Carry the partial event, or hand it to the decoder: too long, or in an event."""
        if len(tail) > self.carry_max or not self.dec.at_boundary():
            if tail:
                self.user.lane_slow(tail)
        else:
            self.carry = tail


def _events_size(buf: bytes, at: int, n: int, sep: bytes) -> int:
    """The bytes of the ``n`` events from ``at``, their blank lines too."""
    end = at
    for _ in range(n):
        end = buf.find(sep, end) + len(sep)
    return end - at
