"""The fast lane of ``translate --to anthropic|responses``: most of a stream is text or
argument deltas that differ from the last one only in their string (and sequence number),
so they can go from input bytes to output bytes without an SSE event, a JSON parse, a chunk
dict or a JSON dump in between.

How it stays exact:

- The input is split on blank lines here; every event the lane does not take (and every
  event while no template is known) goes through the SSE decoder, the translator and the
  encoder as before, in order. The decoder is told how many bytes, lines and events the lane
  took (``SSEDecoder.advance``), so positions and frame numbers stay true. A carriage return
  anywhere hands the rest of the stream to the decoder alone.
- A template is learned only from an event the translator has just handled on the slow
  path and can prove (:func:`lane_cut`: the event's data, parsed again with probes in place
  of its string and sequence number, is the same object): an event equal to it but for a
  valid JSON string there (and, for Responses, the next sequence number) is the same kind
  of delta with no other effect on the translator's state.
- The translator confirms each use (``lane_ok``: the block or call is still the one the
  template was learned in, the stream is not closed, the number is the next one), the
  encoder writes the output only for the block or item it has open (``lane_delta``, else
  the event takes the slow path), and the translator then records the event
  (``lane_commit``).
- The literal goes out as orjson would write it: as is when it has no escape (its UTF-8
  checked), else decoded and dumped again.

``tests/translate/test_lane.py`` compares the lane with the slow path byte for byte on every
recording, the real streams, and streams split at awkward points.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol

import orjson

from sseconform.jsonstr import JSON_STRING, find_literal
from sseconform.sse import Event, SSEDecoder

__all__ = ["LaneEncoder", "LaneTranslator", "Unnumbered", "lane_cut", "run_lane"]

_PROBE = "sseconform-lane-probe"
_PROBE_SEQ = 987654321987654
#: A whole number the lane reads: at most 19 digits, which int() and orjson both read (a
#: longer one is left to the slow path, whatever it makes of it).
_INT = r"(?:0|[1-9][0-9]{0,18})(?![0-9])"
_SEQ = r'"sequence_number":\s*(' + _INT + ")"


class LaneTranslator(Protocol):
    """What a translator offers the lane (see the module docstring)."""

    def feed(self, ev: Event) -> list[Any]: ...

    def finish(self) -> list[Any]: ...

    def lane_template(self) -> tuple[str | None, bytes, int, bool] | None:
        """After the slow path: the last event cut around its delta (event name, data regex,
        call or -1, numbered), if it was a plain delta whose like the lane may take until
        the slow path runs again."""
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


#: Top-level strings a translator never reads, different in every event: OpenAI's
#: ``obfuscation`` padding (chat chunks and Responses events). A template leaves them open.
IGNORED = ("obfuscation",)


def lane_cut(
    data: str,
    obj: dict[str, Any],
    path: tuple[str | int, ...],
    seq: bool,
    numbers: str | None = None,
) -> bytes | None:
    """A regex (bytes) for ``data`` with its string at ``path`` (keys and list indexes; and
    its ``sequence_number``, when ``seq``) left open as groups ``lit`` (and ``seq``), the
    :data:`IGNORED` strings open too, and every whole number in the object at the top-level
    key ``numbers`` (counts that grow from event to event, as Gemini's usage), proven by a
    probe parse; None when the cut is not certain."""
    if _PROBE in data or str(_PROBE_SEQ)[:9] in data or "\n" in data or "\r" in data:
        return None
    holes = _holes(data, obj, path[-1], seq, numbers)
    if holes is None:
        return None
    probe_text, pattern, nums = _fill(data, holes)
    try:
        probe = orjson.loads(probe_text)
    except orjson.JSONDecodeError:
        return None
    return pattern if _proven(probe, obj, path, seq, numbers, nums) else None


def _holes(
    data: str, obj: dict[str, Any], key: str | int, seq: bool, numbers: str | None
) -> list[tuple[int, int, str]] | None:
    """Where ``data`` is left open (start, end, kind), in order; None when a hole is not
    found once or two overlap."""
    span = find_literal(data, key) if isinstance(key, str) else None
    if span is None:
        return None
    holes = [(span[0], span[1], "lit")]
    for name in IGNORED:
        if type(obj.get(name)) is str:
            skip = find_literal(data, name)
            if skip is None:
                return None
            holes.append((skip[0], skip[1], name))
    if seq:
        found = list(re.finditer(_SEQ, data))
        if len(found) != 1:
            return None
        holes.append((found[0].start(1), found[0].end(1), "seq"))
    if numbers is not None and type(obj.get(numbers)) is dict:
        within = _value_span(data, numbers)
        if within is None:
            return None
        for m in _NUMBER.finditer(data, *within):
            holes.append((m.start(1), m.end(1), "num"))
    holes.sort()
    if any(a[1] > b[0] for a, b in itertools.pairwise(holes)):
        return None
    return holes


#: What stands in each kind of hole in the regex (an ignored string: printable ASCII only,
#: nothing to check or decode).
_HOLE_RX = {
    "lit": b"(?P<lit>" + JSON_STRING.pattern.encode() + b")",
    "seq": b"(?P<seq>" + _INT.encode() + b")",
    "num": _INT.encode(),
}


def _fill(data: str, holes: list[tuple[int, int, str]]) -> tuple[str, bytes, dict[int, int]]:
    """The probe text (probes in the holes), the regex, and the probe numbers (each to the
    number it stands for)."""
    probe_text, pattern, at = [], [], 0
    nums: dict[int, int] = {}  # probe number -> the number it stands for
    for a, b, kind in holes:
        if kind == "num":
            nums[_PROBE_SEQ + 1 + len(nums)] = int(data[a:b])
            probe_text += [data[at:a], str(_PROBE_SEQ + len(nums))]
        else:
            probe_text += [data[at:a], str(_PROBE_SEQ) if kind == "seq" else f'"{_PROBE}"']
        pattern += [re.escape(data[at:a].encode()), _HOLE_RX.get(kind, _PLAIN)]
        at = b
    probe_text.append(data[at:])
    pattern.append(re.escape(data[at:].encode()))
    return "".join(probe_text), b"".join(pattern), nums


def _proven(
    probe: Any,
    obj: dict[str, Any],
    path: tuple[str | int, ...],
    seq: bool,
    numbers: str | None,
    nums: dict[int, int],
) -> bool:
    """Whether the probe parse, each probe put back to what it stands for, is ``obj``:
    every hole held one whole string or number and nothing else."""
    if type(probe) is not dict:
        return False
    key = path[-1]
    target: Any = probe
    source: Any = obj
    for step in path[:-1]:
        target, source = _step(target, step), _step(source, step)
    if type(target) is not dict or target.get(key) != _PROBE or type(source) is not dict:
        return False
    target[key] = source[key]
    for name in IGNORED:
        if name in obj and type(obj[name]) is str:
            if probe.get(name) != _PROBE:
                return False
            probe[name] = obj[name]
    if seq:
        if probe.get("sequence_number") != _PROBE_SEQ:
            return False
        probe["sequence_number"] = obj.get("sequence_number")
    if nums and (numbers is None or _put_back(probe.get(numbers), nums) != len(nums)):
        return False
    return bool(probe == obj)


#: A whole number as a JSON value (after ``:``, ``[`` or ``,``; before ``,``, ``]`` or ``}``).
_NUMBER = re.compile(r"[:\[,]\s*(" + _INT + r")(?=\s*[,\]}])")


def _value_span(data: str, key: str) -> tuple[int, int] | None:
    """Where the one object after ``"key":`` lies in ``data`` (its braces matched, strings
    skipped); None if the key is not there once or its value is not an object."""
    needle = f'"{key}":'
    i = data.find(needle)
    if i < 0 or data.find(needle, i + 1) >= 0:
        return None
    at = i + len(needle)
    while at < len(data) and data[at] in " \t":
        at += 1
    if at >= len(data) or data[at] != "{":
        return None
    depth, j = 0, at
    while j < len(data):
        c = data[j]
        if c == '"':
            m = JSON_STRING.match(data, j)
            if m is None:
                return None
            j = m.end()
            continue
        if c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return at, j + 1
        j += 1
    return None


def _put_back(node: Any, nums: dict[int, int]) -> int:
    """Each probe number in ``node`` replaced by the number it stands for; how many."""
    n = 0
    items = node.items() if type(node) is dict else enumerate(node) if type(node) is list else ()
    for k, v in list(items):
        if type(v) is int and v in nums:
            node[k] = nums[v]
            n += 1
        elif type(v) in (dict, list):
            n += _put_back(v, nums)
    return n


def _step(node: Any, step: str | int) -> Any:
    """One step down a path: a key of a dict or an index of a list (else None)."""
    if type(step) is int:
        return node[step] if type(node) is list and 0 <= step < len(node) else None
    return node.get(step) if type(node) is dict else None


#: The first line end: LF, CRLF, or a CR that is not (yet) followed by anything.
_EOL = re.compile(rb"\n|\r\n|\r(?=[^\n])")

#: A literal that is its own value as orjson writes it: printable ASCII, no quote or escape.
_PLAIN = rb'"[ !#-\[\]-~]*"'


class _Template:
    """The segment regexes: ``plain`` for the usual literal (taken as is), ``rx`` for any
    JSON string (checked and dumped again by :func:`_literal`)."""

    __slots__ = ("call", "lines", "numbered", "plain", "rx")

    def __init__(
        self, name: str | None, data: bytes, call: int, numbered: bool, eol: bytes
    ) -> None:
        head = b"event: " + name.encode() + eol + b"data: " if name is not None else b"data: "
        self.rx = re.compile(re.escape(head) + data)
        any_string = b"(?P<lit>" + JSON_STRING.pattern.encode() + b")"
        self.plain = re.compile(
            re.escape(head) + data.replace(any_string, b"(?P<lit>" + _PLAIN + b")")
        )
        self.call = call
        self.numbered = numbered
        self.lines = 3 if name is not None else 2  # with the blank line that ends it


def _literal(lit: bytes) -> bytes | None:
    """The literal as orjson writes its value; None when it is not valid. Without ``\\u``
    or ``\\/`` escapes it is that already (orjson writes the short escapes and everything
    else raw): it is kept once its UTF-8 is checked. Else decoded and dumped again."""
    if b"\\u" not in lit and b"\\/" not in lit:
        if lit.isascii():
            return lit
        try:
            lit.decode()
        except UnicodeDecodeError:
            return None
        return lit
    try:
        return orjson.dumps(orjson.loads(lit))
    except orjson.JSONDecodeError:
        return None


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
    lane = _Lane(t, encoder)
    carry = b""
    trailing = bytearray()  # the bytes after the last event, as the slow path keeps them
    base = 0  # input offset of trailing[0]
    pos = 0  # input offset of the bytes not split yet (the carry)
    for chunk in chunks:
        if not chunk:
            continue
        trailing += chunk
        data = carry + chunk if carry else chunk
        if not lane.sep and not lane.general:
            lane.sniff(data)
        if lane.general or (lane.sep == b"\n\n" and b"\r" in chunk):
            lane.general = True  # a CR in a LF stream: the decoder reads everything from here on
            out, last = lane.slow(data, pos)
            carry = b""
        else:
            out, last, carry = lane.split(data, pos)
        pos += len(data) - len(carry)
        if last:  # where the last event read from this chunk ended
            del trailing[: last - base]
            base = last
        if len(trailing) > max_trailing:  # too long to be an error body: stop keeping it
            base += len(trailing)
            trailing.clear()
        if out:
            yield b"".join(out)
    lane.slow(b"", pos)  # hand back what the lane counted
    dec = lane.dec
    evs = dec.feed(carry) + dec.finish() if carry else dec.finish()
    out = [b for f in on_tail(evs, bytes(trailing)) for b in encoder.feed(f)]
    out += encoder.finish()
    if out:
        yield b"".join(out)


#: Matches nothing: the template for any string while there is none.
_NONE = re.compile(rb"(?!)")


class _Lane:
    """The loop's state: the decoder, the template and writer in use, the sequence numbers
    in and out while the lane runs, and the events it took since the decoder last read."""

    __slots__ = (
        "dec", "encode", "encoder", "eol", "feed", "general", "head", "last_seg", "limit",
        "lines", "lit_group", "numbered_in", "numbered_out", "pieces", "plain_re", "rx",
        "rx_any", "sep", "seplen", "seq_in", "seq_out", "t", "tail", "took",
    )  # fmt: skip

    def __init__(self, t: LaneTranslator, encoder: LaneEncoder) -> None:
        self.t, self.encoder = t, encoder
        self.feed, self.encode = t.feed, encoder.feed
        self.dec = SSEDecoder()
        self.limit = min(self.dec.max_line, self.dec.max_event) - 64
        self.general = False  # a CR alone or in a LF stream: the decoder reads it all
        self.sep = b""  # the blank line that ends an event, once known: LF, or CRLF (Gemini)
        self.seplen = 0
        self.eol = b"\n"
        # the template and the writer (rx None: no template), the numbers in and out
        self.rx: Callable[[bytes], re.Match[bytes] | None] | None = None  # a plain literal
        self.rx_any: Callable[[bytes], re.Match[bytes] | None] = _NONE.fullmatch  # any string
        self.plain_re: re.Pattern[bytes] | None = None
        self.lines = self.lit_group = 0
        self.numbered_in = self.numbered_out = False
        self.head = self.tail = b""
        self.pieces: bytearray | None = None
        self.seq_in = self.seq_out = -1
        self.took = 0  # events taken since the decoder last read (each the template's lines)
        self.last_seg = b""  # the last of them (its translator may read it at hand-back)

    def sniff(self, data: bytes) -> None:
        """The first line's end says which blank line ends events."""
        m = _EOL.search(data)
        if m is None:
            return
        if m.group() == b"\n":
            self.sep = b"\n\n"
        elif m.group() == b"\r\n":
            self.sep, self.eol = b"\r\n\r\n", b"\r\n"  # every line CRLF, as Gemini writes
        else:  # CR alone: the decoder reads it all
            self.general = True
        self.seplen = len(self.sep)

    def split(self, data: bytes, pos: int) -> tuple[list[bytes], int, bytes]:
        """``data`` (from input offset ``pos``) split on blank lines, each event the
        template matches taken, the rest read by the slow path in order: the output, where
        the last event read ended (0: none), and the bytes after the last blank line."""
        sep, seplen = self.sep, self.seplen
        parts = data.split(sep) if sep else [data]
        carry = parts.pop()
        check = len(data) > self.limit
        out: list[bytes] = []
        last = 0
        mark, mark_at = 0, pos  # a part whose input offset is known, and that offset
        start, i = self.scan(parts, 0, 0, check, out)  # start: the first part not yet handled
        while i < len(parts):  # the events before parts[i] first, in order (they may change it)
            at = mark_at + sum(map(len, parts[mark:start])) + seplen * (start - mark)
            batch = sep.join(parts[start:i]) + sep
            got, end = self.slow(batch, at)
            out += got
            last, mark, mark_at = end or last, i, at + len(batch)
            start, i = self.scan(parts, i, i, check, out)
        if self.took and start:  # the lane took parts[start - 1] last (after any slow batch)
            last = max(last, mark_at + sum(map(len, parts[mark:start])) + seplen * (start - mark))
        if start < len(parts):
            at = mark_at + sum(map(len, parts[mark:start])) + seplen * (start - mark)
            got, end = self.slow(sep.join(parts[start:]) + sep, at)
            out += got
            last = end or last
        return out, last, carry

    def scan(
        self, parts: list[bytes], start: int, begin: int, check: bool, out: list[bytes]
    ) -> tuple[int, int]:
        """The template's like taken from ``parts[begin]`` on, into ``out``, until one comes
        after events the lane left to the slow path: the first part not handled (from
        ``start``) and that one's index (``len(parts)``: none). The hot loop: its state in
        locals, written back once."""
        rx, rx_any, limit = self.rx, self.rx_any, self.limit
        if rx is None:
            return start, len(parts)
        lit_group, plain_re = self.lit_group, self.plain_re
        numbered_in, numbered_out = self.numbered_in, self.numbered_out
        head, tail, pieces = self.head, self.tail, self.pieces
        seq_in, seq_out, took, last_seg = self.seq_in, self.seq_out, self.took, self.last_seg
        for i in range(begin, len(parts)):
            seg = parts[i]
            if check and len(seg) > limit:
                continue
            m = rx(seg) if seg.isascii() else None  # a plain literal is ASCII
            if m is None and (m := rx_any(seg)) is None:
                continue
            if start < i:  # the slow path reads those first (they may change the template)
                break
            lit = m.group(lit_group)
            if m.re is not plain_re:  # not plain: escapes or UTF-8 to check
                lit = _literal(lit)
                if lit is None:
                    continue
            if numbered_in:
                if int(m.group("seq")) != seq_in:
                    continue  # out of order: the translator's buffer puts it right
                seq_in += 1
            if len(lit) > 2:  # an empty string says nothing, as on the slow path
                if numbered_out:
                    out.append(head % (lit, seq_out))
                    seq_out += 1
                else:
                    out.append(head + lit + tail)
                if pieces is not None:
                    pieces += lit[1:-1]
            took += 1
            last_seg = seg
            start = i + 1
        else:
            i = len(parts)
        self.seq_in, self.seq_out, self.took, self.last_seg = seq_in, seq_out, took, last_seg
        return start, i

    def slow(self, data: bytes, at: int) -> tuple[list[bytes], int]:
        """Through the decoder (``data`` starts at input offset ``at``): the output, and
        where its last event ended (0: none)."""
        dec = self.dec
        if self.took:  # the events the lane took lie between the decoder's last read and ``at``
            dec.advance(at - dec.position()[1], self.took * self.lines, self.took)
            self.t.lane_took(self.last_seg)
            self.took = 0
        if self.rx is not None:  # hand the numbers back before the slow path reads on
            if self.numbered_in:
                self.t.lane_set_next(self.seq_in)
            if self.numbered_out:
                self.encoder.lane_set_next(self.seq_out)
            self.rx = None
        evs = dec.feed(data)
        dec.take_anomalies()
        feed, encode = self.feed, self.encode
        out = [b for ev in evs for f in feed(ev) for b in encode(f)]
        if evs and not self.general:
            self.learn()
        return out, evs[-1].end if evs else 0

    def learn(self) -> None:
        """The template of the event the slow path read last, if the translator proves one
        and the encoder has its block or item open."""
        cut = self.t.lane_template()
        writer = self.encoder.lane_writer(cut[2]) if cut is not None else None
        if cut is None or writer is None:
            return
        tmpl = _Template(*cut, self.eol)
        self.rx, self.rx_any, self.plain_re = tmpl.plain.fullmatch, tmpl.rx.fullmatch, tmpl.plain
        self.lines, self.numbered_in = tmpl.lines, tmpl.numbered
        self.lit_group = tmpl.rx.groupindex["lit"]
        head, self.tail, self.numbered_out, self.pieces = writer
        if self.numbered_out:  # one format: the literal and the number
            head = head.replace(b"%", b"%%") + b"%b" + self.tail
        self.head = head
        self.seq_in, self.seq_out = self.t.lane_next(), self.encoder.lane_next()
