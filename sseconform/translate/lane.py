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
_SEQ = r'"sequence_number":\s*(0|[1-9][0-9]*)'


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
    key = path[-1]
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
    probe_text, pattern, at = [], [], 0
    nums: dict[int, int] = {}  # probe number -> the number it stands for
    for a, b, kind in holes:
        if kind == "num":
            nums[_PROBE_SEQ + 1 + len(nums)] = int(data[a:b])
            probe_text += [data[at:a], str(_PROBE_SEQ + len(nums))]
        else:
            probe_text += [data[at:a], str(_PROBE_SEQ) if kind == "seq" else f'"{_PROBE}"']
        pattern.append(re.escape(data[at:a].encode()))
        if kind == "lit":
            pattern.append(b"(?P<lit>" + JSON_STRING.pattern.encode() + b")")
        elif kind == "seq":
            pattern.append(b"(?P<seq>0|[1-9][0-9]*)")
        elif kind == "num":
            pattern.append(b"(?:0|[1-9][0-9]*)")
        else:  # an ignored string: printable ASCII only (nothing to check or decode)
            pattern.append(_PLAIN)
        at = b
    probe_text.append(data[at:])
    pattern.append(re.escape(data[at:].encode()))
    try:
        probe = orjson.loads("".join(probe_text))
    except orjson.JSONDecodeError:
        return None
    if type(probe) is not dict:
        return None
    target: Any = probe
    source: Any = obj
    for step in path[:-1]:
        target, source = _step(target, step), _step(source, step)
    if type(target) is not dict or target.get(key) != _PROBE or type(source) is not dict:
        return None
    target[key] = source[key]
    for name in IGNORED:
        if name in obj and type(obj[name]) is str:
            if probe.get(name) != _PROBE:
                return None
            probe[name] = obj[name]
    if seq:
        if probe.get("sequence_number") != _PROBE_SEQ:
            return None
        probe["sequence_number"] = obj.get("sequence_number")
    if nums and (numbers is None or _put_back(probe.get(numbers), nums) != len(nums)):
        return None
    if probe != obj:
        return None
    return b"".join(pattern)


#: A whole number as a JSON value (after ``:``, ``[`` or ``,``; before ``,``, ``]`` or ``}``).
_NUMBER = re.compile(r"[:\[,]\s*(0|[1-9][0-9]*)(?=\s*[,\]}])")


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
    dec = SSEDecoder()
    limit = min(dec.max_line, dec.max_event) - 64
    feed, encode = t.feed, encoder.feed
    carry = b""
    general = False  # a CR in a LF stream: the decoder reads everything from here on
    sep = b""  # the blank line that ends an event, once known: LF, or CRLF (as Gemini writes)
    seplen = 0
    eol = b"\n"
    last_seg = b""  # the last event the lane took (its translator may read it at hand-back)
    trailing = bytearray()  # the bytes after the last event, as the slow path keeps them
    base = 0  # input offset of trailing[0]
    # the template and the writer; the sequence numbers in and out while the lane runs
    rx: Any = None  # the plain template's fullmatch (None: no template)
    rx_any: Any = None  # the one for any string
    plain_re: Any = None
    call = lines = 0
    numbered_in = numbered_out = False
    head = tail = b""
    pieces: bytearray | None = None
    seq_in = seq_out = -1
    took = 0  # events the lane took since the decoder last read (each of the template's lines)
    lit_group = 1
    pos = 0  # input offset of the bytes not split yet (the carry)

    def slow(data: bytes, at: int) -> tuple[list[bytes], int]:
        """Through the decoder (``data`` starts at input offset ``at``): the output, and
        where its last event ended (0: none)."""
        nonlocal rx, rx_any, plain_re, call, lines, numbered_in, numbered_out, head, tail, pieces
        nonlocal seq_in, seq_out, took, lit_group
        if took:  # the events the lane took lie between the decoder's last read and ``at``
            dec.advance(at - dec.position()[1], took * lines, took)
            t.lane_took(last_seg)
            took = 0
        if rx is not None:  # hand the numbers back before the slow path reads on
            if numbered_in:
                t.lane_set_next(seq_in)
            if numbered_out:
                encoder.lane_set_next(seq_out)
        rx = None
        evs = dec.feed(data)
        dec.take_anomalies()
        out = [b for ev in evs for f in feed(ev) for b in encode(f)]
        if evs and not general:
            cut = t.lane_template()
            writer = encoder.lane_writer(cut[2]) if cut is not None else None
            if cut is not None and writer is not None:
                tmpl = _Template(*cut, eol)
                rx_any, plain_re = tmpl.rx.fullmatch, tmpl.plain
                rx, call, lines, numbered_in = (
                    tmpl.plain.fullmatch,
                    tmpl.call,
                    tmpl.lines,
                    tmpl.numbered,
                )
                head, tail, numbered_out, pieces = writer
                if numbered_out:  # one format: the literal and the number
                    head = head.replace(b"%", b"%%") + b"%b" + tail
                lit_group = tmpl.rx.groupindex["lit"]
                seq_in, seq_out = t.lane_next(), encoder.lane_next()
        return out, evs[-1].end if evs else 0

    for chunk in chunks:
        if not chunk:
            continue
        trailing += chunk
        last = 0  # where the last event read from this chunk ended
        if not sep and not general:  # the first line's end says which blank line ends events
            head_bytes = carry + chunk if carry else chunk
            m_eol = _EOL.search(head_bytes)
            if m_eol is not None:
                if m_eol.group() == b"\n":
                    sep = b"\n\n"
                elif m_eol.group() == b"\r\n":
                    sep, eol = b"\r\n\r\n", b"\r\n"  # every line CRLF, as Gemini writes
                else:  # CR alone: the decoder reads it all
                    general = True
                seplen = len(sep)
        if general or (sep == b"\n\n" and b"\r" in chunk):
            general = True
            out, last = slow(carry + chunk, pos)
            pos += len(carry) + len(chunk)
            carry = b""
        else:
            data = carry + chunk if carry else chunk
            parts = data.split(sep) if sep else [data]
            carry = parts.pop()
            check = len(data) > limit
            out = []
            start = 0  # first part not yet handled
            mark, mark_at = 0, pos  # a part whose input offset is known, and that offset
            for i, seg in enumerate(parts):
                if rx is None or (check and len(seg) > limit):
                    continue
                m = rx(seg) if seg.isascii() else None  # a plain literal is ASCII
                if m is None and (m := rx_any(seg)) is None:
                    continue
                if start < i:  # the events before it first, in order (they may change it)
                    at = mark_at + sum(map(len, parts[mark:start])) + seplen * (start - mark)
                    batch = sep.join(parts[start:i]) + sep
                    got, end = slow(batch, at)
                    out += got
                    last, start, mark, mark_at = end or last, i, i, at + len(batch)
                    if rx is None:
                        continue
                    m = rx(seg) if seg.isascii() else None
                    if m is None and (m := rx_any(seg)) is None:
                        continue
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
            if took and start:  # the lane took parts[start - 1] last (after any slow batch)
                lane_end = mark_at + sum(map(len, parts[mark:start])) + seplen * (start - mark)
                last = max(last, lane_end)
            if start < len(parts):
                at = mark_at + sum(map(len, parts[mark:start])) + seplen * (start - mark)
                got, end = slow(sep.join(parts[start:]) + sep, at)
                out += got
                last = end or last
            pos += len(data) - len(carry)
        if last:
            del trailing[: last - base]
            base = last
        if len(trailing) > max_trailing:  # too long to be an error body: stop keeping it
            base += len(trailing)
            trailing.clear()
        if out:
            yield b"".join(out)
    slow(b"", pos)  # hand back what the lane counted
    evs = dec.feed(carry) + dec.finish() if carry else dec.finish()
    out = [b for f in on_tail(evs, bytes(trailing)) for b in encode(f)]
    out += encoder.finish()
    if out:
        yield b"".join(out)
