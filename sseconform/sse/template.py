"""A delta's template, the byte lane's half below ``check`` and ``translate``: cut, proven,
matched on the bytes.

Nearly every event of a long stream, in every grammar, is the next delta of the string being
streamed. Once the layer above has handled one the full way (decoded, parsed, then checked or
translated), an event that is the same text but for its value string (its sequence number,
its ``obfuscation`` padding, counts that grow) parses to the same object but for those.

- :func:`cut`: a delta's data cut around its holes and proven by a probe parse: the text
  with a marker in each hole parses to the object with each marker where its value was, and
  with the values put back, to the object itself. None when that cannot be shown.
- :class:`Template`: a cut as the bytes of a whole event in the form the decoder reads
  without a remark (``event: NAME``, ``data: ``, one line end each); ``take`` matches the
  run of events that follow in a few C calls, whatever its length: one pass of one
  expression (one per template lengths, compiled once) cuts out the holes of the events of
  the template's lengths that follow, each hole one JSON string (an integer for a number)
  exactly as the parser reads one; the events written again from the template and those
  holes must be the bytes read (which proves every head and piece); one UTF-8 decode of all
  the values (:class:`Run`).

One implementation for both, so they cannot drift apart (they did once: a 5000-digit
sequence number; now at most 19 digits, one pattern). The ``sse`` layer imports no JSON
parser (ARCHITECTURE.md): the layer above hands its own down (:class:`Json`). The reading of
the events themselves is ``lane.py``'s.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any, NamedTuple

from sseconform.sse.run import NONE, Run, run_of

__all__ = ["INT", "NUM", "PAD", "SEQ", "VALUE", "Cut", "Json", "Run", "Template", "cut"]

#: A whole number the lane reads (a sequence number, a count): no sign, no leading zero, at
#: most 19 digits, which int() and orjson both read (a longer one is the slow path's).
INT = "0|[1-9][0-9]{0,18}"
#: The kinds of hole: the value string, the sequence number, OpenAI's padding, a count.
VALUE, SEQ, PAD, NUM = "value", "seq", "pad", "num"

PROBE = "sseconform-lane-probe"
PROBE_SEQ = 987654321987
_SEQ = re.compile(r'"sequence_number":\s*(' + INT + ")(?![0-9])")
#: A whole number as the lane reads one, in decoded data.
_WHOLE = re.compile(INT)
#: A whole number as a JSON value (after ``:``, ``[`` or ``,``; before ``,``, ``]`` or ``}``).
_NUMBER = re.compile(r"[:\[,]\s*(" + INT + r")(?![0-9])(?=\s*[,\]}])")


class Json:
    """The JSON the lane reads with, handed down by the layer that parses: the parser, one
    string token exactly as it takes one, and where the one string after a key lies."""

    __slots__ = ("find_literal", "loads", "string", "string_bytes")

    def __init__(
        self,
        loads: Callable[[str | bytes], Any],
        string: re.Pattern[str],
        find_literal: Callable[[str, str], tuple[int, int] | None],
    ) -> None:
        self.loads = loads
        self.string = string
        #: over bytes: bytes from 0x80 up pass as they are, so UTF-8 is checked apart
        self.string_bytes = re.compile(string.pattern.encode())
        self.find_literal = find_literal


# -- the cut and its proof ---------------------------------------------------------------------


class Cut(NamedTuple):
    """An event's data cut around its holes: the text between them (one more piece than
    holes) and the kind of each hole, in order; with the event's ``event:`` name."""

    event: str | None
    segments: tuple[str, ...]
    holes: tuple[str, ...]


def cut(
    data: str,
    obj: dict[str, Any],
    path: tuple[str | int, ...],
    json: Json,
    *,
    event: str | None = None,
    seq: bool = False,
    numbers: str | None = None,
) -> Cut | None:
    """Cut ``data`` (parsed: ``obj``) around the string at ``path`` (keys and list indexes),
    its top-level ``obfuscation`` string, with ``seq`` its top-level ``sequence_number``, and
    every whole number in the object at the top-level key ``numbers`` (counts that grow, as
    Gemini's usage), or the number there (an Anthropic block's index, so one template serves
    every block of its kind); proven by a probe parse. None when the cut is not certain."""
    key = path[-1]
    if type(key) is not str or PROBE in data or str(PROBE_SEQ)[:9] in data:
        return None
    if "\n" in data or "\r" in data:  # one data line, as the lane reads it
        return None
    holes = _holes(data, obj, key, json, seq, numbers)
    if holes is None:
        return None
    text, at = [], 0
    nums: dict[int, int] = {}  # probe number -> the number it stands for
    for a, b, kind in holes:
        if kind == NUM:
            nums[PROBE_SEQ + 1 + len(nums)] = int(data[a:b])
            fill = str(PROBE_SEQ + len(nums))
        else:
            fill = str(PROBE_SEQ) if kind == SEQ else f'"{PROBE}-{kind}"'
        text += [data[at:a], fill]
        at = b
    text.append(data[at:])
    try:
        probe = json.loads("".join(text))
    except ValueError:  # orjson's JSONDecodeError is one
        return None
    if not _proven(probe, obj, data, holes, path, json, numbers, nums):
        return None
    segments = [data[: holes[0][0]]]
    segments += [data[b : holes[k + 1][0]] for k, (_, b, _) in enumerate(holes[:-1])]
    segments.append(data[holes[-1][1] :])
    return Cut(event, tuple(segments), tuple(kind for _, _, kind in holes))


def _holes(
    data: str, obj: dict[str, Any], key: str, json: Json, seq: bool, numbers: str | None
) -> list[tuple[int, int, str]] | None:
    """Where ``data`` is left open (start, end, kind), in order; None when a hole is not
    found once or two overlap."""
    span = json.find_literal(data, key)
    if span is None:
        return None
    holes = [(span[0], span[1], VALUE)]
    if type(obj.get("obfuscation")) is str:
        pad = json.find_literal(data, "obfuscation")
        if pad is None:
            return None
        holes.append((pad[0], pad[1], PAD))
    if seq:
        found = list(_SEQ.finditer(data))
        if len(found) != 1:
            return None
        holes.append((found[0].start(1), found[0].end(1), SEQ))
    if numbers is not None and type(obj.get(numbers)) is dict:
        within = _value_span(data, numbers, json.string)
        if within is None:
            return None
        holes += [(m.start(1), m.end(1), NUM) for m in _NUMBER.finditer(data, *within)]
    elif numbers is not None and type(obj.get(numbers)) is int:  # one number: a block's index
        found = list(re.finditer(f'"{re.escape(numbers)}":\\s*({INT})(?![0-9])', data))
        if len(found) != 1:
            return None
        holes.append((found[0].start(1), found[0].end(1), NUM))
    holes.sort()
    if any(a[1] > b[0] for a, b in itertools.pairwise(holes)):
        return None
    return holes


#: Where each kind of hole's value sits in the object (the value's is the path given).
_PLACES: dict[str, tuple[str | int, ...]] = {SEQ: ("sequence_number",), PAD: ("obfuscation",)}


def _proven(
    probe: Any,
    obj: dict[str, Any],
    data: str,
    holes: list[tuple[int, int, str]],
    path: tuple[str | int, ...],
    json: Json,
    numbers: str | None,
    nums: dict[int, int],
) -> bool:
    """Each marker where its value was (a key spelled another way, ``"x\\"delta":``, is not
    it), then the values put back: the cut is right when that is ``obj`` (the rest of the
    text is the same, so it parses to the same values, of the same types)."""
    if type(probe) is not dict:
        return False
    for a, b, kind in holes:
        if kind == NUM:
            continue
        marker: Any = PROBE_SEQ if kind == SEQ else f"{PROBE}-{kind}"
        where = _PLACES.get(kind, path)
        parent = _at(probe, where[:-1])
        if _at(parent, where[-1:]) != marker:
            return False
        parent[where[-1]] = int(data[a:b]) if kind == SEQ else json.loads(data[a:b])
    if nums and (numbers is None or _put_back_at(probe, numbers, nums) != len(nums)):
        return False
    try:
        return bool(probe == obj)
    except RecursionError:  # nested past Python's stack: the slow path takes it, as it did
        return False


def _at(obj: Any, path: tuple[str | int, ...]) -> Any:
    """What lies at ``path`` (keys of dicts, indexes of lists); None when nothing does."""
    for key in path:
        if type(key) is int:
            if type(obj) is not list or not -len(obj) <= key < len(obj):
                return None
            obj = obj[key]
        elif type(obj) is not dict:
            return None
        else:
            obj = obj.get(key)
    return obj


def _value_span(data: str, key: str, string: re.Pattern[str]) -> tuple[int, int] | None:
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
            m = string.match(data, j)
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


def _put_back_at(probe: dict[str, Any], key: str, nums: dict[int, int]) -> int:
    """The probe numbers at ``key`` put back (one number there, or every one within):
    how many."""
    value = probe.get(key)
    if type(value) is int:
        if value not in nums:
            return 0
        probe[key] = nums[value]
        return 1
    return _put_back(value, nums)


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


class Template:
    """A cut as the bytes of a whole event: ``prefix`` (``event: NAME``, ``data: ``, in the
    plain form the decoder reads without a remark) and the segments, around the holes.

    An event that is these bytes with a JSON string (exactly as the parser reads one, and
    UTF-8) in each string hole and a whole number in each number hole parses to the cut's
    object but for those values: it needs no SSE decoding and no JSON parse."""

    __slots__ = ("event", "form", "holes", "json", "lines", "prefix", "segments", "sep")

    def __init__(self, cut: Cut, json: Json, eol: bytes = b"\n") -> None:
        self.event, self.segments, self.holes = cut
        self.json = json
        name = b"" if cut.event is None else b"event: " + cut.event.encode() + eol
        self.prefix = name + b"data: "
        self.sep = eol + eol
        #: the lines of one event, its blank line too (what the decoder is told it skipped)
        self.lines = 2 if cut.event is None else 3
        self.form: _Form | None = None  # made on the first take: many are never used

    def fits(self, d: str) -> tuple[str, int, tuple[int, ...]] | None:
        """One event's decoded data against the cut (both ``check`` and ``translate`` match
        a decoded event so): its value's literal (quotes and all: one JSON string, exactly as
        the parser reads one), its sequence number (-1: none) and its number holes' values;
        None when it does not fit."""
        segs, holes, string = self.segments, self.holes, self.json.string
        head = segs[0]
        if not d.startswith(head):
            return None
        pos = len(head)
        if len(holes) == 1:  # the value alone (Anthropic's deltas): what lies between the ends
            tail = segs[1]
            end = len(d) - len(tail)
            if end < pos + 2 or not d.endswith(tail) or string.fullmatch(d, pos, end) is None:
                return None
            return d[pos:end], -1, ()
        literal = ""
        seq = -1
        numbers: list[int] = []
        for j, hole in enumerate(holes):
            m = (_WHOLE if hole in (SEQ, NUM) else string).match(d, pos)
            if m is None:
                return None
            if hole == VALUE:
                literal = m.group()
            elif hole == SEQ:
                seq = int(m.group())
            elif hole == NUM:
                numbers.append(int(m.group()))
            pos = m.end()
            if not d.startswith(segs[j + 1], pos):
                return None
            pos += len(segs[j + 1])
        return (literal, seq, tuple(numbers)) if pos == len(d) else None

    def filled(self, value: int) -> Cut:
        """The cut with its one number hole filled in with ``value``: what every event of
        this template with that number is, but for its other holes (the probe parse proved
        the hole takes any whole number). A block's index, known at its start, so the lane
        matches its deltas with one hole fewer."""
        j = self.holes.index(NUM)
        segs = self.segments
        joined = segs[j] + str(value) + segs[j + 1]
        holes = self.holes[:j] + self.holes[j + 1 :]
        return Cut(self.event, (*segs[:j], joined, *segs[j + 2 :]), holes)

    def take(self, buf: bytes, at: int, limit: int) -> Run:
        """The run of events in ``buf`` from ``at`` that fit, up to the first that does not:
        each ends with its blank line and is at most ``limit`` bytes without it.

        A few C calls a run, whatever its length: one pass of one expression (compiled once
        for every template of the same lengths) cuts out the holes of the events of the
        template's lengths, with a JSON string or a number in each hole, that follow each
        other; the events written again from the template and those holes must then be the
        very bytes read, which proves every head and piece at once."""
        form = self.form
        if form is None:
            form = self.form = _Form(self)
        if not buf.startswith(form.head, at):
            return NONE
        m = form.matchers
        cols = form.columns(buf, at)
        if not cols[0]:
            return NONE
        written = form.write(cols)
        end = at + len(written)
        if not buf.startswith(written, at):
            cols, end = form.fitting(buf, at, cols)
            if not cols[0]:
                return NONE
        holes = self.holes
        literals = cols[holes.index(VALUE)]
        seqs = list(map(int, cols[holes.index(SEQ)])) if SEQ in holes else []
        pads = cols[holes.index(PAD)] if PAD in holes else []
        json = self.json
        if end - at > limit + len(self.sep) and not _within(cols, m.fixed, limit):
            k = _first_over(cols, m.fixed, limit)
            run = run_of(literals[:k], seqs[:k], pads[:k], json.loads)
        else:
            run = run_of(literals, seqs, pads, json.loads)
            if run.n == len(literals):
                run.size = end - at
        if NUM in holes:
            run.numbers = [
                list(map(int, c[: run.n])) for c, h in zip(cols, holes, strict=True) if h == NUM
            ]
        return run


class _Form:
    """A template's bytes as its matcher needs them: the head, the expressions of its
    lengths, and how to write a run of events again from their holes."""

    __slots__ = ("glue", "head", "matchers", "pieces", "tail")

    def __init__(self, t: Template) -> None:
        parts = [(t.prefix if j == 0 else b"") + seg.encode() for j, seg in enumerate(t.segments)]
        self.head = parts[0]
        pieces = parts[1:]
        self.matchers = _matchers(
            len(self.head), tuple(map(len, pieces)), t.holes, t.sep, t.json.string_bytes
        )
        self.tail = pieces[-1] + t.sep
        #: the bytes around each hole, the head first and the tail with its blank line last
        self.pieces = (self.head, *pieces[:-1], self.tail)
        #: one hole: the bytes between two events' values
        self.glue = self.tail + self.head

    def columns(self, buf: bytes, at: int) -> list[list[bytes]]:
        """The holes of the run of events of the template's lengths from ``at``, one list a
        hole, in one pass: the expression takes an event, or else the whole rest of the
        buffer (so its matches follow each other from ``at``, and end at the first byte that
        is not such an event). One hole's values are what it finds (the rest adds an empty
        one); with more, its split gives, per event, an empty gap and its holes (the rest:
        none)."""
        view = memoryview(buf)[at:]
        if len(self.pieces) == 2:  # one hole: its values alone (no gaps to step over)
            values: list[bytes] = self.matchers.each.findall(view)
            if values and not values[-1]:
                values.pop()
            return [values]
        parts = self.matchers.each.split(view)
        step = len(self.pieces)
        cols = [parts[h::step] for h in range(1, step)]
        if cols[0] and cols[0][-1] is None:
            cols = [col[:-1] for col in cols]
        return cols

    def write(self, cols: list[list[bytes]]) -> bytes:
        """The events whose holes are ``cols``, written from the template."""
        if len(cols) == 1:
            return self.head + self.glue.join(cols[0]) + self.tail
        n = len(cols[0])
        step = 2 * len(cols) + 1
        out: list[bytes] = [b""] * (step * n)
        for j, piece in enumerate(self.pieces):
            out[2 * j :: step] = [piece] * n
        for h, col in enumerate(cols):
            out[2 * h + 1 :: step] = col
        return b"".join(out)

    def fitting(
        self, buf: bytes, at: int, cols: list[list[bytes]]
    ) -> tuple[list[list[bytes]], int]:
        """The events that fit, one by one from ``at``, up to the first that does not."""
        k = 0
        for k in range(len(cols[0])):
            event = self.write([col[k : k + 1] for col in cols])
            if not buf.startswith(event, at):
                break
            at += len(event)
        else:
            k = len(cols[0])
        return [col[:k] for col in cols], at


def _within(cols: list[list[bytes]], fixed: int, limit: int) -> bool:
    """Every event of a run at most ``limit`` bytes: its fixed bytes and its holes' longest."""
    return fixed + sum(max(map(len, col)) for col in cols) <= limit


def _first_over(cols: list[list[bytes]], fixed: int, limit: int) -> int:
    """The first event of a run longer than ``limit`` (the slow path's to report)."""
    for k, holes in enumerate(zip(*cols, strict=True)):
        if fixed + sum(map(len, holes)) > limit:
            return k
    return len(cols[0])


class _Matchers(NamedTuple):
    """The expression of a template's lengths: ``each`` reads the holes of one event of
    those lengths, or else takes the rest of the buffer whole; ``fixed``: the bytes of an
    event but its holes and blank line."""

    each: re.Pattern[bytes]
    fixed: int


@lru_cache(maxsize=128)
def _matchers(
    head: int,
    pieces: tuple[int, ...],
    holes: tuple[str, ...],
    sep: bytes,
    string: re.Pattern[bytes],
) -> _Matchers:
    """The expression for a template whose head and pieces have these lengths: each as
    so many bytes (what they are is proven after), each hole one JSON string (``string``,
    possessive: it ends at its own closing quote) or a whole number, then the blank line;
    or else the rest of the buffer, so one pass ends where the run does."""
    each = [b".{%d}" % head]
    for hole, size in zip(holes, pieces, strict=True):
        body = b"(?:" + (INT.encode() if hole in (SEQ, NUM) else string.pattern) + b")"
        each += [b"(" + body + b")", b".{%d}" % size]
    end = re.escape(sep)
    return _Matchers(
        re.compile(b"".join(each) + end + b"|(?:.+)", re.DOTALL),
        head + sum(pieces),
    )
