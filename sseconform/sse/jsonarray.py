"""The two JSON framings of Google's API, beside SSE: without ``alt=sse``,
``streamGenerateContent`` answers one JSON array streamed an element at a time (``[{...}``,
then ``,\\r\\n{...}``, then ``]``); ``generateContent`` (no streaming) answers one JSON
object.

:class:`ArrayReader` hands each element (or the one object) on whole, with its place in the
body (byte offset, line, element number), as the SSE decoder hands on an event's data; what
lies between the elements that is not a comma or white space, and an array never closed (an
object cut, or a byte after it), it reports. Memory holds one element (at most
``max_element`` bytes) and never grows with the body. Strings are skipped a run at a time
(one regular expression), so braces in text are never counted.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from sseconform.sse.events import Event

__all__ = ["ArrayReader", "ElementDecoder"]

#: What matters outside a string, inside an element: a string's start and the brackets.
_STRUCTURE = re.compile(rb'["{}\[\]]')
#: What ends a run of a string's characters: its closing quote or an escape.
_IN_STRING = re.compile(rb'["\\]')
_SPACE = b" \t\r\n"

#: Where the reader is: before the array's ``[``, between elements, in one, after ``]``.
BEFORE, BETWEEN, INSIDE, AFTER = range(4)


class ArrayReader:
    """Elements of a streamed JSON array, each handed to ``element(text, offset, line)``;
    ``problem(message, offset, line)`` hears what is not the framing (once each kind).
    ``single``: the body is one JSON object, not an array (a non-streaming answer)."""

    def __init__(
        self,
        element: Callable[[str, int, int], None],
        problem: Callable[[str, int, int], None],
        max_element: int,
        *,
        single: bool = False,
    ) -> None:
        self._element = element
        self._problem = problem
        self.max_element = max_element
        self.single = single
        #: a one-object body opens on its object, as an array's body does after its ``[``
        self.state = BETWEEN if single else BEFORE
        self.offset = 0  # bytes read before the current feed's first byte
        self.line = 1  # the line the current feed's first byte is on
        self.elements = 0
        self._buf: list[bytes] = []  # the element so far
        self._size = 0
        self._start = (0, 1)  # the element's offset and line
        self._depth = 0
        self._string = False  # in a string
        self._escape = False  # after a backslash in a string
        self._said: set[str] = set()
        self._comma = True  # an element may come (after ``[`` or ``,``)
        self._seen = (0, 1)  # (index in the current feed, its line): _place's count so far

    def feed(self, data: bytes) -> None:
        """The next bytes of the body."""
        i, n = 0, len(data)
        self._seen = (0, self.line)  # the feed's lines counted up to here (see _place)
        while i < n:
            if self.state == INSIDE:
                i = self._inside(data, i)
                continue
            c = data[i : i + 1]
            if c in _SPACE:
                i += 1
            elif self.state == BEFORE and c == b"[":
                self.state = BETWEEN
                i += 1
            elif self.state == BETWEEN and c == b"{" and self._comma:
                self.state, self._depth, self._comma = INSIDE, 0, False
                self._start = self._place(data, i)
                self._buf, self._size = [], 0
            elif self.state == BETWEEN and c == b"," and not self._comma and self.elements:
                self._comma = True
                i += 1
            elif self.state == BETWEEN and c == b"]" and not self.single:
                self.state = AFTER
                i += 1
            else:
                self._stray(data, i)
                i += 1
        self.line += data.count(b"\n")
        self.offset += n

    def close(self) -> None:
        """The end of the body: an array not closed (or an element cut) is reported; a
        one-object body with no object, or its object cut."""
        what = "its JSON object" if self.single else "an element of the array"
        if self.state == INSIDE:
            self._once("cut", f"the body ends inside {what}", *self._start)
        elif self.single and not self.elements and "stray" not in self._said:
            self._once("open", "the body holds no JSON object", self.offset, self.line)
        elif self.state in (BEFORE, BETWEEN) and not self.single:
            self._once("open", "the body ends before the array's closing ]", self.offset, self.line)

    def _stray(self, data: bytes, i: int) -> None:
        """A byte that is not the framing, quoted (one byte: the same however the body was
        split into reads)."""
        if "stray" in self._said:
            return  # said once: no place to count
        if not self.single:
            where = "outside the array's elements"
        elif self.elements:
            where = "after the body's JSON object"
        else:
            where = "where the body's JSON object should begin"
        seen = data[i : i + 1].decode("latin-1")
        self._once("stray", f"{seen!r}: a byte {where}", *self._place(data, i))

    def _place(self, data: bytes, i: int) -> tuple[int, int]:
        """Offset and line of the feed's byte ``i``: lines counted on from the last place
        asked (places are asked in order within a feed, so a feed's lines are counted once,
        however many elements or stray bytes it holds)."""
        at, line = self._seen
        if i < at:
            at, line = 0, self.line
        line += data.count(b"\n", at, i)
        self._seen = (i, line)
        return self.offset + i, line

    def _once(self, kind: str, message: str, offset: int, line: int) -> None:
        if kind not in self._said:
            self._said.add(kind)
            self._problem(message, offset, line)

    def _inside(self, data: bytes, i: int) -> int:
        """Read an element from ``i``: to its end (then handed on) or the feed's end."""
        start, n = i, len(data)
        while i < n:
            if self._string:
                if self._escape:
                    self._escape = False
                    i += 1
                    continue
                m = _IN_STRING.search(data, i)
                if m is None:
                    i = n
                    break
                i = m.end()
                if m.group() == b"\\":
                    self._escape = True
                else:
                    self._string = False
                continue
            m = _STRUCTURE.search(data, i)
            if m is None:
                i = n
                break
            i = m.end()
            c = m.group()
            if c == b'"':
                self._string = True
            elif c in b"{[":
                self._depth += 1
            else:
                self._depth -= 1
                if self._depth == 0:
                    self._keep(data[start:i])
                    self._done()
                    return i
        self._keep(data[start:i])
        return i

    def _keep(self, piece: bytes) -> None:
        self._size += len(piece)
        if self._size <= self.max_element:
            self._buf.append(piece)

    def _done(self) -> None:
        self.elements += 1
        self.state = AFTER if self.single else BETWEEN
        offset, line = self._start
        if self._size > self.max_element:
            what = "the body's JSON object is" if self.single else "an element"
            self._once("large", f"{what} over {self.max_element} bytes", offset, line)
            return
        self._element(b"".join(self._buf).decode("utf-8", "replace"), offset, line)


class ElementDecoder:
    """The SSE decoder's ``feed``/``finish`` over a JSON framing: each element of the array
    (or the one object, ``single``) an :class:`Event` whose data is its text, numbered from
    1 and placed at its first byte. What is not the framing is not said here (``check``'s
    rules say it); an element over ``max_element`` bytes is left out."""

    def __init__(self, *, single: bool, max_element: int = 1 << 26) -> None:
        self._out: list[Event] = []
        self._reader = ArrayReader(self._element, _unsaid, max_element, single=single)

    def _element(self, text: str, offset: int, line: int) -> None:
        ev = Event(text, None, None, None, self._reader.elements, line, offset, 1)
        ev.end = offset + len(text.encode())
        self._out.append(ev)

    def feed(self, data: bytes) -> list[Event]:
        self._reader.feed(data)
        return self._take()

    def finish(self) -> list[Event]:
        self._reader.close()
        return self._take()

    def _take(self) -> list[Event]:
        out, self._out = self._out, []
        return out


def _unsaid(message: str, offset: int, line: int) -> None:
    """A framing problem nobody here reports."""
