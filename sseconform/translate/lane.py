"""The fast lane of ``translate --to``: most of a stream is text or argument deltas that
differ from the last one only in their string (and sequence number), so they go from input
bytes to output bytes without an SSE event, a JSON parse, a chunk dict or a JSON dump in
between.

The lane itself is the byte lane below ``check`` and ``translate`` (``sse/lane.py``,
``sse/template.py``): events cut on their blank lines (LF, or CRLF as Gemini writes them), a
template cut from a delta and proven by a probe parse, the events that follow matched on
their bytes and their values checked in bulk, the decoder told what was skipped. Here is
what ``translate`` does with it:

- A template is cut only from an event the translator has just handled on the slow path
  and names (``lane_candidate``: a plain delta whose like, equal to it but for a valid JSON
  string there, and for Responses the next sequence number, has no other effect on its
  state), and only while the encoder has the delta's block or item open (``lane_writer``).
- What it does with a run: each number must be the next one (else the event takes the slow
  path, whose buffer puts it right); each literal goes out as orjson would write it (as is
  without ``\\u`` or ``\\/`` escapes, else decoded and dumped again) between the encoder's
  bytes, numbered when the target is; an empty one says nothing, as on the slow path.
- The numbers, and the last event taken (a translator that keeps a value the template
  leaves open, as Gemini's usage, reads it there), are handed back after each run.

``tests/translate/test_lane.py`` compares the lane with the slow path byte for byte on every
recording, the real streams, and streams split at awkward points.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple, Protocol

import orjson

from sseconform.jsonstr import JSON_STRING, find_literal
from sseconform.sse import Event, SSEDecoder
from sseconform.sse.lane import Lane, Waste
from sseconform.sse.template import Json, Run, Template, cut

__all__ = ["JSON", "Candidate", "LaneEncoder", "LaneTranslator", "Unnumbered", "run_lane"]

#: orjson, and its string grammar (``jsonstr``), for the lane's cuts, matches and values.
JSON = Json(orjson.loads, JSON_STRING, find_literal)


class Candidate(NamedTuple):
    """A plain delta the translator has just handled, as the lane may cut it: the event, its
    object, the path of its string, the call it adds to (-1: text), whether its
    ``sequence_number`` is left open too, and the top-level key of counts that grow."""

    ev: Event
    obj: dict[str, Any]
    path: tuple[str | int, ...]
    call: int
    seq: bool = False
    numbers: str | None = None


class LaneTranslator(Protocol):
    """What a translator offers the lane (see the module docstring)."""

    def feed(self, ev: Event) -> list[Any]: ...

    def finish(self) -> list[Any]: ...

    def lane_candidate(self) -> Candidate | None:
        """After the slow path: the last event, if it was a plain delta whose like the lane
        may take until the slow path runs again."""
        ...

    def lane_next(self) -> int:
        """The sequence number the next event must carry (-1: none)."""
        ...

    def lane_set_next(self, n: int) -> None:
        """The lane took events up to ``n - 1``."""
        ...

    def lane_took(self, event: bytes) -> None:
        """The last event the lane took, whole (a translator that keeps a value the
        template leaves open, as Gemini's usage, reads it from there)."""
        ...


class Unnumbered:
    """The lane's bookkeeping for a stream whose events carry no sequence number and no
    value the template leaves open that must be read back: nothing to hand over."""

    def lane_next(self) -> int:
        return -1

    def lane_set_next(self, n: int) -> None:
        pass

    def lane_took(self, event: bytes) -> None:
        pass


class LaneEncoder(Protocol):
    def feed(self, frame: Any) -> list[bytes]: ...

    def finish(self) -> list[bytes]: ...

    def lane_writer(self, call: int) -> tuple[bytes, bytes, bool, bytearray | None] | None:
        """For deltas of ``call`` (-1: text) while its block or item is open: the bytes
        before and after the literal (the latter with ``%d`` for the sequence number when
        numbered), and the buffer the literal's inside goes to (the item's text, which its
        ``.done`` events repeat), or None."""
        ...

    def lane_next(self) -> int: ...

    def lane_set_next(self, n: int) -> None: ...


def run_lane(
    chunks: Iterable[bytes],
    t: LaneTranslator,
    encoder: LaneEncoder,
    on_tail: Callable[[list[Event], bytes], list[Any]],
    max_trailing: int,
) -> Iterator[bytes]:
    """Bytes in, the target's bytes out, one output piece per input piece (see the module
    docstring). ``on_tail(events, trailing)``: the frames that end the stream, from the
    decoder's last events and the bytes after the last event (a provider's bare error
    body; at most ``max_trailing`` of them are kept, as the slow path keeps them)."""
    writer = _Writer(t, encoder)
    lane = writer.lane
    trailing = bytearray()  # the bytes after the last event, as the slow path keeps them
    base = 0  # input offset of trailing[0]
    for chunk in chunks:
        if not chunk:
            continue
        trailing += chunk
        lane.feed(chunk)
        last = writer.last
        if last:  # where the last event read from this chunk ended
            del trailing[: last - base]
            base = last
            writer.last = 0
        if len(trailing) > max_trailing:  # too long to be an error body: stop keeping it
            base += len(trailing)
            trailing.clear()
        if writer.out:
            yield b"".join(writer.out)
            writer.out = []
    carry = lane.close()
    dec = writer.dec
    evs = dec.feed(carry) + dec.finish() if carry else dec.finish()
    out = [b for f in on_tail(evs, bytes(trailing)) for b in encoder.feed(f)]
    out += encoder.finish()
    if out:
        yield b"".join(out)


#: The escapes orjson does not write (``\\u``, ``\\/``): a literal with one is dumped again.
_ESCAPES = re.compile(rb"\\[u/]")


def _as_written(lit: bytes) -> bytes:
    """A valid literal as orjson writes its value: without ``\\u`` or ``\\/`` escapes it is
    that already (orjson writes the short escapes and everything else raw); else decoded and
    dumped again."""
    if _ESCAPES.search(lit) is None:
        return lit
    return orjson.dumps(orjson.loads(lit))


class _Writer:
    """What ``translate`` does with the lane (``sse.lane.LaneUser``): the slow path (decoder,
    translator, encoder), the template of the last plain delta it read, and each run written
    out; the sequence numbers in and out, and where the last event read ended."""

    __slots__ = (
        "dec", "encode", "encoder", "feed", "head", "lane", "last", "numbered_in",
        "numbered_out", "out", "pieces", "seq_in", "seq_out", "t", "tail", "tmpl", "used",
        "waste",
    )  # fmt: skip

    def __init__(self, t: LaneTranslator, encoder: LaneEncoder) -> None:
        self.t, self.encoder = t, encoder
        self.feed, self.encode = t.feed, encoder.feed
        self.dec = SSEDecoder()
        limit = min(self.dec.max_line, self.dec.max_event) - 64
        self.lane = Lane(self.dec, self, limit=limit, crlf=True)
        self.waste = Waste()  # as check: a stream whose every delta differs elsewhere too
        self.out: list[bytes] = []  # the output of the piece being read
        self.last = 0  # where the last event read ended (0: none since it was asked)
        self.tmpl: Template | None = None
        self.used = False  # the template took an event
        self.numbered_in = self.numbered_out = False
        self.head = self.tail = b""
        self.pieces: bytearray | None = None
        self.seq_in = self.seq_out = -1

    def lane_template(self) -> Template | None:
        return self.tmpl

    def lane_take(self, run: Run) -> int:
        n = run.n
        literals = run.literals
        if self.numbered_in:  # up to the first out of order: the translator's buffer puts it
            seqs, seq = run.seqs, self.seq_in
            k = 0
            while k < n and seqs[k] == seq + k:
                k += 1
            if not k:
                return 0
            if k < n:
                n, literals = k, literals[:k]
            self.seq_in = seq + n
            self.t.lane_set_next(self.seq_in)
        if not run.plain and _ESCAPES.search(run.raw()):  # rare: orjson writes these raw
            literals = [_as_written(lit) for lit in literals]
        said = [lit for lit in literals if len(lit) > 2]  # an empty string says nothing
        if said:
            head = self.head
            if self.numbered_out:
                seq = self.seq_out
                self.out += [head % (lit, seq + k) for k, lit in enumerate(said)]
                self.seq_out = seq + len(said)
                self.encoder.lane_set_next(self.seq_out)
            else:
                tail = self.tail
                self.out += [head + lit + tail for lit in said]
            if self.pieces is not None:
                self.pieces += b"".join([lit[1:-1] for lit in said])
        self.used = True
        return n

    def lane_took(self, n: int, last: bytes) -> None:
        self.last = self.dec.position()[1]
        self.t.lane_took(last)

    def lane_slow(self, data: bytes) -> None:
        dec = self.dec
        evs = dec.feed(data)
        dec.take_anomalies()
        if not evs:
            return
        feed, encode = self.feed, self.encode
        self.out += [b for ev in evs for f in feed(ev) for b in encode(f)]
        self.last = evs[-1].end
        if not self.lane.off:
            self.learn()

    def learn(self) -> None:
        """The template of the event the slow path read last, if the translator names it a
        plain delta, the encoder has its block or item open and the cut is proven."""
        if self.tmpl is not None:
            self.waste.dropped(self.used)
            self.tmpl = None
        c = self.t.lane_candidate()
        writer = self.encoder.lane_writer(c.call) if c is not None else None
        if c is None or writer is None or not self.waste.worth():
            return
        found = cut(c.ev.data, c.obj, c.path, JSON, event=c.ev.event, seq=c.seq, numbers=c.numbers)
        if found is None:
            return
        self.tmpl = Template(found, JSON, self.lane.eol)
        self.used = False
        head, self.tail, self.numbered_out, self.pieces = writer
        if self.numbered_out:  # one format: the literal and the number
            head = head.replace(b"%", b"%%") + b"%b" + self.tail
        self.head = head
        self.numbered_in = c.seq
        self.seq_in, self.seq_out = self.t.lane_next(), self.encoder.lane_next()
