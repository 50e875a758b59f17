"""Partial JSON, read as it arrives: validity, status and a pretty-printed view, in linear time.

Tool-call arguments stream in fragments of a few characters. Re-parsing the whole buffer per
fragment (what partial-JSON libraries do) is quadratic: 200 KB in 4-character fragments takes
tens of seconds. :class:`PartialJSON` is a push parser instead: each character is looked at
once, an explicit state table (``_STEPS``: one step function per parser state) keeps the
grammar position, and the pretty-printed text is *emitted* as tokens are recognised, so the
view only ever appends. Long runs inside strings are consumed
with one regex match, so one huge string argument costs no more than many small values.

What it gives after every fragment, in time independent of what came before:

- ``status``: ``waiting`` (nothing but whitespace yet), ``streaming`` (a valid prefix),
  ``complete`` (one whole value), ``invalid`` (a character no JSON could continue with:
  ``error`` says what, ``error_offset`` where), and after :meth:`finish`, ``truncated`` (ended
  inside the value) or ``empty`` (ended with no text);
- :meth:`tail`: the last lines of the pretty print (strings and numbers keep their source
  form), plus :attr:`pending` (the closers an unfinished value still needs) to mark its end.

:meth:`value` (the Python value of the prefix, closed where it stops) and :meth:`pretty` (the
whole text) cost the size of the text; they are for summaries and tests, not for every frame.

The grammar is RFC 8259 exactly: ``NaN``, single quotes, trailing commas, comments, leading
zeros and control characters inside strings are all invalid, as they are to strict clients.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

__all__ = ["PartialJSON"]

# parser states
_TOP = 0  # before the top-level value
_VALUE = 1  # after ':'
_ELEM = 2  # after ',' in an array
_ARR_FIRST = 3  # after '['
_OBJ_FIRST = 4  # after '{'
_KEY = 5  # after ',' in an object
_COLON = 6  # after a key
_AFTER = 7  # after a value inside a container
_STRING = 8
_ESCAPE = 9
_UNICODE = 10
_NUMBER = 11
_LITERAL = 12
_END = 13  # one whole value, whitespace may follow
_INVALID = 14

_WS = re.compile(r"[ \t\n\r]+")
_WS_CHARS = frozenset(" \t\n\r")
_STR_RUN = re.compile(r'[^"\\\x00-\x1f]+')
_DIGITS = re.compile(r"[0-9]+")
_HEX = frozenset("0123456789abcdefABCDEF")
_ESCAPES = frozenset('"\\/bfnrt')
_LITERALS = {"t": "true", "f": "false", "n": "null"}
_NUMBER_PREFIX = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_NUMBER_CHARS = frozenset("0123456789.eE+-")

# number sub-states: after '-', after a leading 0, in the integer digits, after '.',
# in the fraction, after 'e', after the exponent's sign, in the exponent digits
_N_MINUS, _N_ZERO, _N_INT, _N_DOT, _N_FRAC, _N_E, _N_ESIGN, _N_EXP = range(8)
_N_ACCEPT = frozenset({_N_ZERO, _N_INT, _N_FRAC, _N_EXP})

#: status by parser state, while reading and after finish()
_STATUS_LIVE = ("waiting",) + ("streaming",) * 12 + ("complete", "invalid")
_STATUS_DONE = ("empty",) + ("truncated",) * 12 + ("complete", "invalid")

#: Indentation stops growing here: a hostile 100 000-deep value must not print quadratically.
MAX_INDENT_DEPTH = 32


def _describe(ch: str) -> str:
    if ch == "":
        return "the end"
    if ch.isprintable() and ch != " ":
        return repr(ch)
    return f"U+{ord(ch):04X}"


class PartialJSON:
    """A push parser and pretty printer for one JSON text that arrives in pieces."""

    __slots__ = (
        "_closers",
        "_cur",
        "_indents",
        "_is_key",
        "_lines",
        "_lit",
        "_nstate",
        "_rest",
        "_stack",
        "_state",
        "_uni",
        "error",
        "error_offset",
        "finished",
        "size",
    )

    def __init__(self, indent: int = 2) -> None:
        self._indents = [" " * (indent * d) for d in range(MAX_INDENT_DEPTH + 1)]
        self._state = _TOP
        self._stack: list[str] = []  # '{' or '[' per open container
        self._closers: str | None = ""  # what closes the stack; None when it changed
        self._lines: list[str] = []  # finished lines of the pretty print
        self._cur: list[str] = []  # pieces of the line being written
        self._is_key = False
        self._nstate = 0
        self._lit = ""  # the rest a literal still needs
        self._uni = 0  # hex digits still expected after \u
        self._rest: list[str] = []  # raw text after an invalid character
        self.size = 0  # characters fed
        self.error: str | None = None
        self.error_offset: int | None = None
        self.finished = False

    # -- reading ---------------------------------------------------------------------------

    def feed(self, text: str) -> None:
        """Read the next fragment. Never raises on bad JSON: it sets ``status`` to invalid.

        Each turn hands the text at ``i`` to the step of the state it is in (``_STEPS``, the
        state table); the step reads as much as that state takes (a run of string
        characters, a whole number, ``": "`` after a key) and says the next state and
        where it stopped."""
        base = self.size
        self.size = base + len(text)
        if self._state == _INVALID:
            self._rest.append(text)
            return
        i = 0
        n = len(text)
        state = self._state
        steps = _STEPS
        while i < n:
            state, i = steps[state](self, text, i, n, base, state)
            if state == _INVALID:
                if i < n:
                    self._rest.append(text[i:])
                break
        self._state = state

    def finish(self) -> None:
        """The arguments ended: a number at the very end is complete; anything open is truncated."""
        self.finished = True
        if self._state == _NUMBER and self._nstate in _N_ACCEPT:
            self._state = _AFTER if self._stack else _END

    # -- state -----------------------------------------------------------------------------

    @property
    def status(self) -> str:
        """``waiting``, ``streaming``, ``complete``, ``invalid``, ``truncated`` or ``empty``."""
        return (_STATUS_DONE if self.finished else _STATUS_LIVE)[self._state]

    @property
    def depth(self) -> int:
        """How many containers are open."""
        return len(self._stack)

    @property
    def in_token(self) -> bool:
        """The text ends inside a string, number or literal (the view marks that token)."""
        return self._state in (_STRING, _ESCAPE, _UNICODE, _NUMBER, _LITERAL)

    @property
    def pending(self) -> str:
        """What would close the value where it stands: e.g. ``"}]`` (shown dimmed as the tail)."""
        st = self._state
        if st < _STRING:
            return "" if st == _TOP else self._closers or self._closing()
        if st <= _UNICODE:
            return '"' + (self._closers or self._closing())
        if st == _NUMBER:
            return self._closers or self._closing()
        if st == _LITERAL:
            return self._lit + (self._closers or self._closing())
        return ""

    def _closing(self) -> str:
        """The closers of the open containers, computed again only after the stack changed."""
        closers = self._closers
        if closers is None:
            closers = "".join(["}" if c == "{" else "]" for c in reversed(self._stack)])
            self._closers = closers
        return closers

    @property
    def invalid_text(self) -> str:
        """The raw text from the invalid character on (kept for the view, not parsed)."""
        return "".join(self._rest)

    def line_count(self) -> int:
        """Lines of the pretty print so far, the unfinished one included."""
        return len(self._lines) + 1

    def tail(self, lines: int, width: int | None = None) -> list[str]:
        """The last ``lines`` lines of the pretty print, each cut to its last ``width`` chars.

        The cost grows with the window, not with the text: the unfinished line (one huge
        string is one line) is read backwards from its pieces, never joined. A cut line
        starts with an ellipsis.
        """
        if lines <= 0:
            return []
        before = self._lines[-(lines - 1) :] if lines > 1 else []
        if width is None:
            return [*before, self._current()]
        out = [_cut(line, width) for line in before]
        cur = self._cur
        acc: list[str] = []
        have = 0
        k = len(cur) - 1
        while k >= 0 and have < width:
            acc.append(cur[k])
            have += len(cur[k])
            k -= 1
        while k >= 0 and not cur[k]:  # an empty indent piece adds nothing to the line
            k -= 1
        acc.reverse()
        joined = "".join(acc)
        if len(acc) > 1:  # fold what was walked, so the next call walks only new pieces
            cur[k + 1 :] = [joined[:-width], joined[-width:]] if have > 2 * width else [joined]
        out.append(joined if k < 0 and have <= width else _cut("\u2026" + joined, width))
        return out

    def _current(self) -> str:
        cur = self._cur
        if len(cur) > 1:
            cur[:] = ["".join(cur)]
        return cur[0] if cur else ""

    def pretty(self) -> str:
        """The whole pretty print so far (no closers added)."""
        return "\n".join([*self._lines, self._current()])

    def value(self) -> Any:
        """The value of the text so far, closed where it stops (``None`` when nothing is).

        An unfinished string is closed, an unfinished number cut to its longest valid prefix,
        and a key or an array element whose value has not started is left out: the same
        reading partial-JSON libraries give, computed once.
        """
        if self._state == _INVALID:
            return None
        lines = [*self._lines, self._current()]
        st = self._state
        last = lines[-1]
        if (st in (_STRING, _ESCAPE, _UNICODE) and self._is_key) or st in (_COLON, _VALUE):
            self._drop_member(lines)
        elif st in (_STRING, _ESCAPE, _UNICODE):
            if st == _ESCAPE:
                last = last[:-1]
            elif st == _UNICODE:
                last = last[: -(2 + 4 - self._uni)]
            lines[-1] = last + '"'
        elif st == _NUMBER:
            start = len(last.rstrip("0123456789.eE+-"))
            m = _NUMBER_PREFIX.match(last, start)
            if m is None:
                self._drop_member(lines)
            else:
                lines[-1] = last[: m.end()]
        elif st == _LITERAL:
            self._drop_member(lines)
        elif st in (_KEY, _ELEM):
            lines[-1] = last.rstrip(",")
        if not lines or not "".join(lines).strip():
            return None
        text = "\n".join(lines) + self._closing()
        try:
            return json.loads(text)
        except RecursionError:  # a hostile depth: no value rather than a crash
            return None

    def _drop_member(self, lines: list[str]) -> None:
        """Remove the last line (a key, or an element not yet a value) and the comma before it."""
        if self._stack:
            lines.pop()
            if lines and lines[-1].endswith(","):
                lines[-1] = lines[-1][:-1]
        else:
            lines.clear()

    # -- writing ---------------------------------------------------------------------------

    def _newline(self, *pieces: str) -> list[str]:
        """End the line being written; start the next at the stack's indent with ``pieces``."""
        cur = self._cur
        self._lines.append(cur[0] if len(cur) == 1 else "".join(cur))
        self._cur = cur = [self._indents[min(len(self._stack), MAX_INDENT_DEPTH)], *pieces]
        return cur

    def _fail(self, offset: int, why: str) -> int:
        self.error = why
        self.error_offset = offset
        return _INVALID


# -- the state table: one step per parser state ------------------------------------------
#
# A step is called with the parser, the fragment, where to read in it, its length, the
# offset of the fragment in the whole text and the state; it returns the next state and
# where it stopped (the failing character's index for _INVALID).

_Step = Callable[[PartialJSON, str, int, int, int, int], tuple[int, int]]


def _string(p: PartialJSON, text: str, i: int, n: int, base: int, state: int) -> tuple[int, int]:
    """Inside a string (or a key): a run of plain characters at once, then what ends it."""
    cur = p._cur
    m = _STR_RUN.match(text, i)
    if m is not None:
        j = m.end()
        cur.append(text[i:j])
        i = j
        if i == n:
            return _STRING, i
    c = text[i]
    if c == '"':
        i += 1
        if not p._is_key:
            cur.append('"')
            return (_AFTER if p._stack else _END), i
        if i < n and text[i] == ":":  # the usual `": ` after a key, in one turn
            cur.append('": ')
            i += 1
            if i < n and text[i] == " ":
                i += 1
            if i < n and text[i] == '"':  # and a string value: stay in strings
                cur.append('"')
                p._is_key = False
                return _STRING, i + 1
            return _VALUE, i
        cur.append('"')
        return _COLON, i
    if c == "\\":
        if i + 1 < n and text[i + 1] in _ESCAPES:  # a short escape, in one turn
            cur.append(text[i : i + 2])
            return _STRING, i + 2
        cur.append(c)
        return _ESCAPE, i + 1
    return p._fail(base + i, f"control character {_describe(c)} in a string"), i


def _after(p: PartialJSON, text: str, i: int, n: int, base: int, state: int) -> tuple[int, int]:
    """After a value inside a container: a comma, the container's closer, or whitespace."""
    c = text[i]
    stack = p._stack
    if c == ",":
        p._cur.append(",")
        i += 1
        if i < n and text[i] == " ":
            i += 1
        if stack[-1] != "{":
            return _ELEM, i
        if i < n and text[i] == '"':  # the next key, in the same turn
            p._newline('"')
            p._is_key = True
            return _STRING, i + 1
        return _KEY, i
    if c == "}" or c == "]":
        top = stack.pop()
        p._closers = None
        if (c == "}") != (top == "{"):
            stack.append(top)
            return p._fail(base + i, f"{_describe(c)} closes a {_describe(top)}"), i
        p._newline(c)
        return (_AFTER if stack else _END), i + 1
    if c in _WS_CHARS:
        return _AFTER, _ws_end(text, i)
    want = "',' or '}'" if stack[-1] == "{" else "',' or ']'"
    return p._fail(base + i, f"expected {want}, found {_describe(c)}"), i


def _number(p: PartialJSON, text: str, i: int, n: int, base: int, state: int) -> tuple[int, int]:
    """Inside a number that began in an earlier fragment (or was cut by the fragment's end)."""
    c = text[i]
    ns = p._nstate
    cur = p._cur
    if "0" <= c <= "9":
        if ns == _N_ZERO:
            return p._fail(base + i, "a number with a leading zero"), i
        j = _ws_digits(text, i)
        if ns == _N_MINUS:
            if c == "0" and j - i > 1:
                cur.append("0")
                return p._fail(base + i + 1, "a number with a leading zero"), i + 1
            ns = _N_ZERO if c == "0" else _N_INT
        elif ns == _N_DOT:
            ns = _N_FRAC
        elif ns in (_N_E, _N_ESIGN):
            ns = _N_EXP
        p._nstate = ns
        cur.append(text[i:j])
        return _NUMBER, j
    if c == "." and ns in (_N_ZERO, _N_INT):
        p._nstate = _N_DOT
    elif (c == "e" or c == "E") and ns in (_N_ZERO, _N_INT, _N_FRAC):
        p._nstate = _N_E
    elif (c == "+" or c == "-") and ns == _N_E:
        p._nstate = _N_ESIGN
    elif ns in _N_ACCEPT:
        stack = p._stack
        if c == "," and stack:  # the number ended at a comma: take it now
            cur.append(",")
            i += 1
            if i < n and text[i] == " ":
                i += 1
            return (_KEY if stack[-1] == "{" else _ELEM), i
        return (_AFTER if stack else _END), i  # the number ended: c is read again
    else:
        return p._fail(base + i, f"an unfinished number before {_describe(c)}"), i
    cur.append(c)
    return _NUMBER, i + 1


def _escape(p: PartialJSON, text: str, i: int, n: int, base: int, state: int) -> tuple[int, int]:
    """After a backslash in a string."""
    c = text[i]
    if c in _ESCAPES:
        state = _STRING
    elif c == "u":
        p._uni = 4
        state = _UNICODE
    else:
        return p._fail(base + i, f"invalid escape: \\ then {_describe(c)}"), i
    p._cur.append(c)
    return state, i + 1


def _unicode(p: PartialJSON, text: str, i: int, n: int, base: int, state: int) -> tuple[int, int]:
    """The four hex digits of a ``\\u`` escape."""
    c = text[i]
    if c not in _HEX:
        return p._fail(base + i, f"{_describe(c)} in a \\u escape"), i
    p._cur.append(c)
    p._uni -= 1
    return (_STRING if p._uni == 0 else _UNICODE), i + 1


def _literal(p: PartialJSON, text: str, i: int, n: int, base: int, state: int) -> tuple[int, int]:
    """The rest of ``true``, ``false`` or ``null``, as far as it came."""
    want = p._lit
    cur = p._cur
    k = min(len(want), n - i)
    if text.startswith(want[:k], i):
        cur.append(want[:k])
        p._lit = want = want[k:]
        return (_LITERAL if want else _AFTER if p._stack else _END), i + k
    while text[i] == want[0]:  # to the first character that does not fit
        cur.append(want[0])
        i += 1
        want = want[1:]
    p._lit = want
    return p._fail(base + i, f"{_describe(text[i])} inside a literal"), i


def _colon(p: PartialJSON, text: str, i: int, n: int, base: int, state: int) -> tuple[int, int]:
    """After a key, before its colon."""
    c = text[i]
    if c in _WS_CHARS:
        return state, _ws_end(text, i)
    if c != ":":
        return p._fail(base + i, f"expected ':', found {_describe(c)}"), i
    p._cur.append(": ")
    return _VALUE, i + 1


def _key(p: PartialJSON, text: str, i: int, n: int, base: int, state: int) -> tuple[int, int]:
    """Where a key starts: after ``{`` (where ``}`` may close it at once) or a comma."""
    c = text[i]
    if c in _WS_CHARS:
        return state, _ws_end(text, i)
    if c == '"':
        p._newline('"')
        p._is_key = True
        return _STRING, i + 1
    if c == "}" and state == _OBJ_FIRST:
        stack = p._stack
        stack.pop()
        p._closers = None
        p._cur.append("}")
        return (_AFTER if stack else _END), i + 1
    return p._fail(base + i, f"expected a key, found {_describe(c)}"), i


def _end(p: PartialJSON, text: str, i: int, n: int, base: int, state: int) -> tuple[int, int]:
    """After the whole value: whitespace only."""
    c = text[i]
    if c in _WS_CHARS:
        return state, _ws_end(text, i)
    return p._fail(base + i, f"{_describe(c)} after the end of the value"), i


def _value(p: PartialJSON, text: str, i: int, n: int, base: int, state: int) -> tuple[int, int]:
    """Where a value starts: the top, after a colon, after ``[`` (where ``]`` may close it at
    once) or a comma in an array. A number whose end is in this fragment is taken whole."""
    c = text[i]
    if c in _WS_CHARS:
        return state, _ws_end(text, i)
    stack = p._stack
    if c == "]" and state == _ARR_FIRST:
        stack.pop()
        p._closers = None
        p._cur.append("]")
        return (_AFTER if stack else _END), i + 1
    cur = p._newline() if state in (_ELEM, _ARR_FIRST) else p._cur
    if c == '"':
        cur.append('"')
        p._is_key = False
        return _STRING, i + 1
    if c == "{" or c == "[":
        cur.append(c)
        stack.append(c)
        p._closers = None
        return (_OBJ_FIRST if c == "{" else _ARR_FIRST), i + 1
    if c == "-" or "0" <= c <= "9":
        m = _NUMBER_PREFIX.match(text, i)
        j = m.end() if m is not None else i
        if j < n and text[j] not in _NUMBER_CHARS:  # the whole number is here
            cur.append(text[i:j])
            return (_AFTER if stack else _END), j
        cur.append(c)
        p._nstate = _N_MINUS if c == "-" else _N_ZERO if c == "0" else _N_INT
        return _NUMBER, i + 1
    if c in _LITERALS:
        cur.append(c)
        p._lit = _LITERALS[c][1:]
        return _LITERAL, i + 1
    return p._fail(base + i, f"expected a value, found {_describe(c)}"), i


def _ws_end(text: str, i: int) -> int:
    """Past the whitespace at ``i`` (a single space without the regex)."""
    if text[i] == " " and (i + 1 == len(text) or text[i + 1] not in _WS_CHARS):
        return i + 1
    m = _WS.match(text, i)
    return m.end() if m is not None else i


def _ws_digits(text: str, i: int) -> int:
    """Past the digits at ``i``."""
    m = _DIGITS.match(text, i)
    return m.end() if m is not None else i


#: The state table: the step of each state (_INVALID has none: reading stops there).
_STEPS: tuple[_Step, ...] = (
    _value,  # _TOP
    _value,  # _VALUE
    _value,  # _ELEM
    _value,  # _ARR_FIRST
    _key,  # _OBJ_FIRST
    _key,  # _KEY
    _colon,  # _COLON
    _after,  # _AFTER
    _string,  # _STRING
    _escape,  # _ESCAPE
    _unicode,  # _UNICODE
    _number,  # _NUMBER
    _literal,  # _LITERAL
    _end,  # _END
)


def _cut(line: str, width: int) -> str:
    """The end of a line that is longer than ``width``, marked with an ellipsis."""
    if len(line) <= width:
        return line
    return "\u2026" + line[len(line) - width + 1 :] if width > 1 else "\u2026"
