"""PartialJSON: the push parser and pretty printer for streamed tool-call arguments.

Three oracles are used:

- ``json.loads`` with ``NaN``/``Infinity`` rejected: the verdict on a whole text (RFC 8259);
- a small recursive-descent reference written out below from the RFC grammar: it says where the
  first character that no JSON text could continue with sits, and for a viable prefix gives a
  completion (checked with ``json.loads``), so "truncated" and "invalid" are both checked exactly;
- a regex tokenizer over valid documents: what ``depth``, ``in_token``, ``pending`` and
  ``status`` must be after every prefix.
"""

from __future__ import annotations

import itertools
import json
import random
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sseconform.model.partial import MAX_INDENT_DEPTH, PartialJSON

# database=None: keep the run from writing a .hypothesis/ folder into the checkout.
SLOW_OK = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]


def hsettings(n: int) -> settings:
    return settings(max_examples=n, deadline=None, database=None, suppress_health_check=SLOW_OK)


ELLIPSIS = "\u2026"
JSON_WS = " \t\n\r"


# -- helpers ---------------------------------------------------------------------------------


def pieces(text: str, cuts: list[int]) -> list[str]:
    """``text`` cut at the given offsets (in any order, repeats allowed: empty fragments)."""
    bounds = [0, *sorted(min(max(c, 0), len(text)) for c in cuts), len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds)]


def parse(fragments: list[str] | str, *, finish: bool = True, indent: int = 2) -> PartialJSON:
    p = PartialJSON(indent=indent)
    for frag in [fragments] if isinstance(fragments, str) else fragments:
        p.feed(frag)
    if finish:
        p.finish()
    return p


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard constant {name}")


def strict_loads(text: str) -> Any:
    """``json.loads``, minus the NaN/Infinity/-Infinity extension."""
    return json.loads(text, parse_constant=_reject_constant)


class _Duplicate(Exception):
    pass


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Duplicate
    return out


def loads_unique(text: str) -> Any:
    """``strict_loads``, or ``_Duplicate`` when an object repeats a key (the last would win)."""
    return json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_unique_pairs)


def strictly_valid(text: str) -> bool:
    try:
        strict_loads(text)
    except ValueError:
        return False
    return True


def same(a: Any, b: Any) -> bool:
    """Equal, with types (bool/int/float), key order and float signs (-0.0) compared too."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return repr(a) == repr(b)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def _is_number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _utf16(s: str) -> bytes:
    return s.encode("utf-16-le", "surrogatepass")


def is_prefix_of(p: Any, f: Any, *, top: bool = True) -> bool:
    """Could ``p`` be the value a prefix of the text of ``f`` closes to?

    Finished members must be equal; only the last member of each container may be partial:
    a string cut short (compared as UTF-16, so a surrogate pair cut in half still counts), a
    number cut to a valid prefix (any number), a container with fewer members. ``None`` at the
    top means nothing has a value yet.
    """
    if top and p is None:
        return True
    if _is_number(p):
        return _is_number(f)
    if isinstance(p, str):
        return isinstance(f, str) and _utf16(f).startswith(_utf16(p))
    if isinstance(p, list):
        if not isinstance(f, list) or len(p) > len(f):
            return False
        if not p:
            return True
        return all(same(x, y) for x, y in zip(p[:-1], f, strict=False)) and is_prefix_of(
            p[-1], f[len(p) - 1], top=False
        )
    if isinstance(p, dict):
        if not isinstance(f, dict) or list(p) != list(f)[: len(p)]:
            return False
        if not p:
            return True
        *done, last = list(p)
        return all(same(p[k], f[k]) for k in done) and is_prefix_of(p[last], f[last], top=False)
    return same(p, f)


def cut(line: str, width: int) -> str:
    return line if len(line) <= width else ELLIPSIS + line[len(line) - (width - 1) :]


def expected_tail(pretty: str, lines: int, width: int | None) -> list[str]:
    all_lines = pretty.split("\n")[-lines:]
    return all_lines if width is None else [cut(x, width) for x in all_lines]


# -- the reference grammar -------------------------------------------------------------------


class _Eof(Exception):
    """The text ended inside a value; ``completion`` is one way to finish it."""

    def __init__(self, completion: str) -> None:
        super().__init__(completion)
        self.completion = completion


class _Err(Exception):
    def __init__(self, pos: int) -> None:
        super().__init__(pos)
        self.pos = pos


class _Ref:
    """RFC 8259 by recursive descent: ``ok``, ``eof`` (+ a completion) or ``error`` (+ offset)."""

    def __init__(self, s: str) -> None:
        self.s = s
        self.i = 0

    def end(self) -> bool:
        return self.i >= len(self.s)

    def ch(self) -> str:
        return self.s[self.i]

    def ws(self) -> None:
        while not self.end() and self.ch() in JSON_WS:
            self.i += 1

    def digits(self) -> None:
        while not self.end() and self.ch() in "0123456789":
            self.i += 1

    def value(self) -> None:
        self.ws()
        if self.end():
            raise _Eof("0")
        c = self.ch()
        if c == "{":
            self.obj()
        elif c == "[":
            self.arr()
        elif c == '"':
            self.string()
        elif c == "-" or c in "0123456789":
            self.number()
        elif c in "tfn":
            self.literal({"t": "true", "f": "false", "n": "null"}[c])
        else:
            raise _Err(self.i)

    def literal(self, word: str) -> None:
        for k, want in enumerate(word):
            if self.end():
                raise _Eof(word[k:])
            if self.ch() != want:
                raise _Err(self.i)
            self.i += 1

    def string(self) -> None:
        self.i += 1
        while True:
            if self.end():
                raise _Eof('"')
            c = self.ch()
            if c == '"':
                self.i += 1
                return
            if c == "\\":
                self.i += 1
                if self.end():
                    raise _Eof('n"')
                c = self.ch()
                if c in '"\\/bfnrt':
                    self.i += 1
                    continue
                if c != "u":
                    raise _Err(self.i)
                self.i += 1
                for k in range(4):
                    if self.end():
                        raise _Eof("0" * (4 - k) + '"')
                    if self.ch() not in "0123456789abcdefABCDEF":
                        raise _Err(self.i)
                    self.i += 1
                continue
            if ord(c) < 0x20:
                raise _Err(self.i)
            self.i += 1

    def number(self) -> None:
        if self.ch() == "-":
            self.i += 1
        if self.end():
            raise _Eof("0")
        if self.ch() == "0":
            self.i += 1
        elif self.ch() in "123456789":
            self.digits()
        else:
            raise _Err(self.i)
        if not self.end() and self.ch() == ".":
            self.i += 1
            if self.end():
                raise _Eof("0")
            if self.ch() not in "0123456789":
                raise _Err(self.i)
            self.digits()
        if not self.end() and self.ch() in "eE":
            self.i += 1
            if self.end():
                raise _Eof("0")
            if self.ch() in "+-":
                self.i += 1
                if self.end():
                    raise _Eof("0")
            if self.ch() not in "0123456789":
                raise _Err(self.i)
            self.digits()

    def arr(self) -> None:
        self.i += 1
        self.ws()
        if self.end():
            raise _Eof("]")
        if self.ch() == "]":
            self.i += 1
            return
        while True:
            try:
                self.value()
            except _Eof as e:
                raise _Eof(e.completion + "]") from None
            self.ws()
            if self.end():
                raise _Eof("]")
            c = self.ch()
            self.i += 1
            if c == "]":
                return
            if c != ",":
                raise _Err(self.i - 1)

    def obj(self) -> None:
        self.i += 1
        self.ws()
        if self.end():
            raise _Eof("}")
        if self.ch() == "}":
            self.i += 1
            return
        while True:
            self.ws()
            if self.end():
                raise _Eof('"\\uffff":0}')
            if self.ch() != '"':
                raise _Err(self.i)
            try:
                self.string()
            except _Eof as e:
                raise _Eof(e.completion + ":0}") from None
            self.ws()
            if self.end():
                raise _Eof(":0}")
            if self.ch() != ":":
                raise _Err(self.i)
            self.i += 1
            try:
                self.value()
            except _Eof as e:
                raise _Eof(e.completion + "}") from None
            self.ws()
            if self.end():
                raise _Eof("}")
            c = self.ch()
            self.i += 1
            if c == "}":
                return
            if c != ",":
                raise _Err(self.i - 1)


def reference(text: str) -> tuple[str, int | None, str]:
    """``("ok", None, "")``, ``("eof", None, completion)`` or ``("error", offset, "")``."""
    r = _Ref(text)
    try:
        r.value()
        r.ws()
        if not r.end():
            raise _Err(r.i)
    except _Eof as e:
        return "eof", None, e.completion
    except _Err as e:
        return "error", e.pos, ""
    return "ok", None, ""


# -- strategies ------------------------------------------------------------------------------

CONTROL = "".join(chr(c) for c in range(0x20))
tricky_text = st.text(st.sampled_from(list(CONTROL + '"\\/é\u2028\u00a0😀\U0010ffffab ')))
json_strings = st.text(max_size=12) | tricky_text.filter(lambda s: len(s) <= 12)
json_ints = st.integers() | st.integers(min_value=-(2**200), max_value=2**200)
json_floats = st.floats(allow_nan=False, allow_infinity=False)
json_scalars = st.none() | st.booleans() | json_ints | json_floats | json_strings
json_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(
            st.text(max_size=6) | tricky_text.filter(lambda s: len(s) <= 6), children, max_size=4
        )
    ),
    max_leaves=14,
)

small_values = st.recursive(
    json_scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=3), children, max_size=3)
    ),
    max_leaves=5,
)

GAPS = ["", "", "", "", "", " ", "\n", "\t", "\r\n", "  ", " \n\t\r "]
SHORT_ESCAPES = {
    '"': '\\"',
    "\\": "\\\\",
    "\b": "\\b",
    "\f": "\\f",
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
}


def _u_escape(cp: int, rnd: random.Random) -> str:
    hexa = f"{cp:04x}"
    return "\\u" + (hexa.upper() if rnd.random() < 0.5 else hexa)


def dump_string(s: str, rnd: random.Random) -> str:
    """A JSON string for ``s`` with escapes chosen at random (short, \\u either case, pairs)."""
    out = ['"']
    for ch in s:
        cp = ord(ch)
        r = rnd.random()
        if ch in SHORT_ESCAPES and r < 0.7:
            out.append(SHORT_ESCAPES[ch])
        elif ch in '"\\' or cp < 0x20 or r < 0.15:
            if cp > 0xFFFF:
                cp -= 0x10000
                out.append(
                    _u_escape(0xD800 + (cp >> 10), rnd) + _u_escape(0xDC00 + (cp & 0x3FF), rnd)
                )
            else:
                out.append(_u_escape(cp, rnd))
        elif ch == "/" and r < 0.5:
            out.append("\\/")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def dump_number(x: int | float, rnd: random.Random) -> str:
    if isinstance(x, int):
        if abs(x) < 10**15 and rnd.random() < 0.3:
            return rnd.choice([f"{x}E+0", f"{x}.0e0", f"{x}e-0", f"{x}.000"])
        return str(x)
    return rnd.choice([repr(x), repr(x), f"{x:.17e}", f"{x:.17E}", repr(x).upper()])


def dump(v: Any, rnd: random.Random) -> str:
    """JSON text for ``v`` with random whitespace between every two tokens."""

    def gap() -> str:
        return rnd.choice(GAPS)

    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return dump_number(v, rnd)
    if isinstance(v, str):
        return dump_string(v, rnd)
    if isinstance(v, list):
        return "[" + gap() + ",".join(gap() + dump(x, rnd) + gap() for x in v) + gap() + "]"
    members = (
        gap() + dump_string(k, rnd) + gap() + ":" + gap() + dump(x, rnd) + gap()
        for k, x in v.items()
    )
    return "{" + gap() + ",".join(members) + gap() + "}"


@st.composite
def json_docs(draw: st.DrawFn, values: st.SearchStrategy[Any] = json_values) -> str:
    """Valid JSON texts: ``json.dumps`` with random options, or the random-whitespace dumper."""
    v = draw(values)
    if draw(st.booleans()):
        text = json.dumps(
            v,
            ensure_ascii=draw(st.booleans()),
            indent=draw(st.sampled_from([None, 0, 1, 2, "\t", "\r\n "])),
            separators=draw(st.sampled_from([None, (",", ":"), (", ", ": "), (" ,\n", " :\t")])),
            sort_keys=draw(st.booleans()),
        )
    else:
        text = dump(v, draw(st.randoms(use_true_random=False)))
    return draw(st.sampled_from(GAPS)) + text + draw(st.sampled_from(GAPS))


@st.composite
def canonical_docs(draw: st.DrawFn) -> tuple[Any, str, bool]:
    """``json.dumps`` output, whose pretty print must be ``json.dumps(indent=2)`` exactly."""
    v = draw(json_values)
    ascii_ = draw(st.booleans())
    text = json.dumps(
        v,
        ensure_ascii=ascii_,
        indent=draw(st.sampled_from([None, 0, 4, "\t"])),
        separators=draw(st.sampled_from([None, (",", ":"), (" , ", " : ")])),
    )
    return v, text, ascii_


JSONISH = list('{}[]:,"\\ 0123456789.-+eEtrufalsn')
OTHERS: list[str] = [
    *"\t\n\r\x00\x08\x1f\x7f\x0b\x0c\xa0\ufeff\u2028é😀'/*NIaubAFx",
]
TOKENS = [
    *"{}[]:, \n",
    '"a"',
    '"',
    "\\",
    "\\u",
    "00e9",
    "0",
    "1",
    "-",
    "12",
    "01",
    ".5",
    ".",
    "e+3",
    "E-",
    "true",
    "false",
    "null",
    "tru",
    "nul",
    '"k":',
    '"\\n"',
    '"\\u12',
    "NaN",
    "x",
    "\t",
]
arbitrary_text = st.text(st.sampled_from(JSONISH * 3 + OTHERS), max_size=60) | st.lists(
    st.sampled_from(TOKENS), max_size=25
).map("".join)


@st.composite
def near_json(draw: st.DrawFn) -> str:
    """A valid document with one edit: a character deleted, inserted or replaced, or a cut."""
    text = draw(json_docs(small_values))
    pos = draw(st.integers(0, len(text)))
    op = draw(st.sampled_from(["delete", "insert", "replace", "cut"]))
    other = draw(st.sampled_from(JSONISH + OTHERS))
    if op == "delete":
        return text[:pos] + text[pos + 1 :]
    if op == "insert":
        return text[:pos] + other + text[pos:]
    if op == "replace":
        return text[:pos] + other + text[pos + 1 :]
    return text[:pos]


any_text = arbitrary_text | near_json()


# -- the expected view of each prefix of a valid document ----------------------------------

_TOKEN = re.compile(
    r"""(?P<ws>[ \t\n\r]+)|(?P<str>"(?:[^"\\]|\\.)*")|(?P<num>-?[0-9][0-9.eE+-]*)"""
    r"""|(?P<lit>true|false|null)|(?P<p>[\[\]{}:,])"""
)


def expected_views(text: str) -> dict[int, tuple[str, int, bool, str]]:
    """For a valid text: ``p -> (status, depth, in_token, pending)`` after ``text[:p]``.

    A number is "in a token" up to and including its last character (more digits could
    follow), and only completes the top-level value once something follows it.
    """
    out: dict[int, tuple[str, int, bool, str]] = {}
    stack: list[str] = []
    seen_value = False
    top_end: int | None = None
    top_is_num = False
    pos = 0
    for m in _TOKEN.finditer(text):
        kind, lexeme = m.lastgroup, m.group()
        s, e = m.span()
        assert s == pos, "tokenizer gap"
        pos = e
        if kind == "p" and lexeme in "[{":
            stack.append(lexeme)
        elif kind == "p" and lexeme in "]}":
            stack.pop()
        if kind != "ws":
            seen_value = True
            if top_end is None and not stack and lexeme not in ":,":
                top_end, top_is_num = e, kind == "num"
        closers = "".join("}" if c == "{" else "]" for c in reversed(stack))
        for p in range(s + 1, e + 1):
            head, in_tok = "", False
            if kind == "str" and p < e:
                head, in_tok = '"', True
            elif kind == "lit" and p < e:
                head, in_tok = lexeme[p - s :], True
            elif kind == "num":
                in_tok = True
            if not seen_value:
                status = "waiting"
            elif top_end is not None and (p > top_end or (p == top_end and not top_is_num)):
                status = "complete"
            else:
                status = "streaming"
            out[p] = (status, len(stack), in_tok, head + closers)
    assert pos == len(text), "tokenizer stopped early"
    return out


def value_depth(v: Any) -> int:
    if isinstance(v, list):
        return 1 + max((value_depth(x) for x in v), default=0)
    if isinstance(v, dict):
        return 1 + max((value_depth(x) for x in v.values()), default=0)
    return 0


# -- 1. valid documents, any split -------------------------------------------------------------


def snapshot(p: PartialJSON) -> tuple[Any, ...]:
    return (
        p.status,
        p.pretty(),
        json.dumps(p.value()),
        p.line_count(),
        p.depth,
        p.pending,
        p.in_token,
        p.error,
        p.error_offset,
        p.invalid_text,
        p.size,
        p.tail(4),
    )


@hsettings(300)
@given(text=json_docs(), data=st.data())
def test_valid_documents_complete_under_any_split(text: str, data: st.DataObject) -> None:
    want = strict_loads(text)
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=12), label="cuts")
    splits = [[text], list(text), pieces(text, cuts)]
    snaps = []
    for frags in splits:
        p = parse(frags)
        assert p.status == "complete", (p.error, p.error_offset)
        assert p.error is None and p.error_offset is None and p.invalid_text == ""
        assert p.depth == 0 and p.pending == "" and not p.in_token
        assert p.size == len(text)
        assert same(p.value(), want)
        assert same(strict_loads(p.pretty()), want)
        assert p.line_count() == p.pretty().count("\n") + 1
        snaps.append(snapshot(p))
    assert snaps[0] == snaps[1] == snaps[2]


@hsettings(150)
@given(doc=canonical_docs())
def test_pretty_print_is_json_dumps_indent(doc: tuple[Any, str, bool]) -> None:
    v, text, ascii_ = doc
    if value_depth(v) > MAX_INDENT_DEPTH:
        return
    assert parse(text).pretty() == json.dumps(v, indent=2, ensure_ascii=ascii_)
    assert parse(text, indent=4).pretty() == json.dumps(v, indent=4, ensure_ascii=ascii_)
    assert parse(text, indent=0).pretty() == json.dumps(v, indent=0, ensure_ascii=ascii_)


# -- 2. the grammar, exactly -----------------------------------------------------------------


@hsettings(1200)
@given(text=any_text, data=st.data())
def test_verdict_and_error_offset_match_the_grammar(text: str, data: st.DataObject) -> None:
    verdict, offset, completion = reference(text)
    # the reference agrees with json.loads on whole texts, and its completions are real
    assert (verdict == "ok") == strictly_valid(text)
    if verdict == "eof":
        strict_loads(text + completion)

    p = parse(text)
    if verdict == "ok":
        assert p.status == "complete"
    elif verdict == "error":
        assert p.status == "invalid"
        assert p.error_offset == offset, p.error
    elif text.strip(JSON_WS):
        assert p.status == "truncated"
    else:
        assert p.status == "empty"
    assert (p.status == "complete") == strictly_valid(text)

    if p.status == "invalid":
        assert p.error_offset is not None
        off = p.error_offset
        assert isinstance(p.error, str) and p.error
        assert p.value() is None and p.pending == ""
        # the first character no JSON text could continue with
        assert parse(text[:off], finish=False).status != "invalid"
        assert parse(text[:off], finish=True).status != "invalid"
        assert parse(text[: off + 1], finish=False).status == "invalid"
        assert parse(text[: off + 1], finish=False).error_offset == off
        # the kept raw text is exactly the text from the invalid character on
        assert p.invalid_text == text[off:]
    else:
        assert p.error is None and p.error_offset is None and p.invalid_text == ""

    # every prefix, char by char: invalid exactly from error_offset + 1 on, and value() is a
    # prefix of the reference completion of that prefix
    q = PartialJSON()
    first_invalid = None
    for k, c in enumerate(text, start=1):
        q.feed(c)
        if q.status == "invalid":
            if first_invalid is None:
                first_invalid = k
            assert q.value() is None
            continue
        assert q.status in ("waiting", "streaming", "complete")
        v = q.value()
        json.dumps(v)
        if q.status == "complete":
            assert same(v, strict_loads(text[:k]))
        else:
            kind, _, comp = reference(text[:k])
            assert kind in ("eof", "ok")
            try:
                completed = loads_unique(text[:k] + comp)
            except _Duplicate:
                continue
            assert is_prefix_of(v, completed), (text[:k], v)
    if p.status == "invalid":
        assert p.error_offset is not None  # asserted above too; narrows the type here
        assert first_invalid == p.error_offset + 1
    else:
        assert first_invalid is None

    # split invariance for any text
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=6), label="cuts")
    r = parse(pieces(text, cuts))
    for attr in ("status", "error", "error_offset", "pending", "depth", "in_token", "size"):
        assert getattr(r, attr) == getattr(p, attr), attr
    assert r.pretty() == p.pretty()
    assert r.invalid_text == p.invalid_text
    assert same(r.value(), p.value())


# -- 3. prefixes of valid documents ------------------------------------------------------------


@hsettings(150)
@given(text=json_docs())
def test_every_prefix_of_a_valid_document(text: str) -> None:
    final = strict_loads(text)
    full = parse(text)
    final_pretty = full.pretty()
    views = expected_views(text)
    p = PartialJSON()
    prev: Any = None
    for k, c in enumerate(text, start=1):
        p.feed(c)
        status, depth, in_token, pending = views[k]
        assert (p.status, p.depth, p.in_token, p.pending) == (status, depth, in_token, pending), (
            text[:k]
        )
        v = p.value()
        json.dumps(v)
        assert is_prefix_of(v, final), (text[:k], v)
        assert is_prefix_of(prev, v), (text[:k], prev, v)  # value() only grows
        prev = v
        pretty = p.pretty()
        assert final_pretty.startswith(pretty)  # the view only ever appends
        assert p.line_count() == pretty.count("\n") + 1
        assert p.tail(3) == expected_tail(pretty, 3, None)
        assert p.tail(2, 12) == expected_tail(pretty, 2, 12)
        # the text plus what it still needs: when that is JSON, value() read it that way
        if not pending[:1].isalpha():  # a literal is dropped until whole: skip those
            try:
                closed = strict_loads(text[:k] + pending)
            except ValueError:
                pass
            else:
                assert same(v, closed), (text[:k], pending)
    assert same(p.value(), final)
    p.finish()
    assert p.status == "complete"
    assert same(p.value(), final)


# -- 4. by hand ------------------------------------------------------------------------------

CASES: list[tuple[str, str, int | None]] = [
    # numbers
    ("0", "complete", None),
    ("-0", "complete", None),
    ("0.5", "complete", None),
    ("-0.5e-3", "complete", None),
    ("123456789012345678901234567890", "complete", None),
    ("1E400", "complete", None),
    ("01", "invalid", 1),
    ("00", "invalid", 1),
    ("-01", "invalid", 2),
    ("[01]", "invalid", 2),
    ("[-01]", "invalid", 3),
    ('{"a":-00}', "invalid", 7),
    ("1.", "truncated", None),
    ("-", "truncated", None),
    ("1e", "truncated", None),
    ("1e+", "truncated", None),
    ("1E-", "truncated", None),
    ("[1.", "truncated", None),
    ("1e+5", "complete", None),
    ("1E5", "complete", None),
    ("1.e5", "invalid", 2),
    (".5", "invalid", 0),
    ("+1", "invalid", 0),
    ("1.5.2", "invalid", 3),
    ("--1", "invalid", 1),
    ("-a", "invalid", 1),
    ("1e5e5", "invalid", 3),
    ("1e5.", "invalid", 3),
    ("0x10", "invalid", 1),
    ("1-", "invalid", 1),
    ("[1.]", "invalid", 3),
    ("[1e]", "invalid", 3),
    # containers
    ("{}", "complete", None),
    ("[]", "complete", None),
    ("[ ]", "complete", None),
    ("{ \n}", "complete", None),
    ('[[], {}, [[{}]], {"": {}}]', "complete", None),
    ('[ "a" , 1 , {"b" : null} ]', "complete", None),
    ("[1,]", "invalid", 3),
    ("[,1]", "invalid", 1),
    ("[1 2]", "invalid", 3),
    ("[1,,2]", "invalid", 3),
    ('{"a":1,}', "invalid", 7),
    ('{"a" 1}', "invalid", 5),
    ('{"a":}', "invalid", 5),
    ('{"a":1 "b":2}', "invalid", 7),
    ("{1:2}", "invalid", 1),
    ("{a:1}", "invalid", 1),
    ("[}", "invalid", 1),
    ("{]", "invalid", 1),
    ("[1}", "invalid", 2),
    ('{"a":1]', "invalid", 6),
    ("[[]}", "invalid", 3),
    ("]", "invalid", 0),
    ("}", "invalid", 0),
    ("{", "truncated", None),
    ("[", "truncated", None),
    ("[1,", "truncated", None),
    ('{"a"', "truncated", None),
    ('{"a":', "truncated", None),
    ('{"a":1', "truncated", None),
    ('{"a":1,', "truncated", None),
    # trailing content
    ("{} x", "invalid", 3),
    ("{}}", "invalid", 2),
    ("[]]", "invalid", 2),
    ('{"a":1}}', "invalid", 7),
    ("1 2", "invalid", 2),
    ("true false", "invalid", 5),
    ("truex", "invalid", 4),
    ('"a""b"', "invalid", 3),
    # strings
    ('"abc"', "complete", None),
    ('"\\u00e9"', "complete", None),
    ('"\\u00E9\\uABCD"', "complete", None),
    ('"\\ud83d\\ude00"', "complete", None),
    ('"\\ud800"', "complete", None),  # a lone surrogate escape is grammatical
    ('"\\"\\\\\\/\\b\\f\\n\\r\\t"', "complete", None),
    ('"\x7f\u2028é😀"', "complete", None),
    ('"\\x"', "invalid", 2),
    ('"\\U0041"', "invalid", 2),
    ('"\\a"', "invalid", 2),
    ('"\\u12G4"', "invalid", 5),
    ('"\\u12"', "invalid", 5),
    ('"a\nb"', "invalid", 2),
    ('"a\tb"', "invalid", 2),
    ('"a\x00"', "invalid", 2),
    ('"\x1f"', "invalid", 1),
    ('{"k\n": 1}', "invalid", 3),
    ('"abc', "truncated", None),
    ('"\\', "truncated", None),
    ('"\\u12', "truncated", None),
    # literals and what strict JSON rejects
    ("true", "complete", None),
    ("false", "complete", None),
    ("null", "complete", None),
    ("tru", "truncated", None),
    ("nul", "truncated", None),
    ("trUe", "invalid", 2),
    ("True", "invalid", 0),
    ("NaN", "invalid", 0),
    ("nan", "invalid", 1),
    ("Infinity", "invalid", 0),
    ("-Infinity", "invalid", 1),
    ("[NaN]", "invalid", 1),
    ("'a'", "invalid", 0),
    ("{'a': 1}", "invalid", 1),
    ("// c\n1", "invalid", 0),
    ("/* c */ 1", "invalid", 0),
    ("1 // c", "invalid", 2),
    ("[1 /* c */]", "invalid", 3),
    ("undefined", "invalid", 0),
    # top-level scalars and whitespace
    ("42", "complete", None),
    ('"x"', "complete", None),
    ("  42  ", "complete", None),
    ("\t\n\r 1 \r\n", "complete", None),
    ("", "empty", None),
    ("   \n\t\r", "empty", None),
    ("\x0c1", "invalid", 0),  # form feed is not JSON whitespace
    ("\x0b1", "invalid", 0),
    ("\u00a01", "invalid", 0),
    ("\ufeff1", "invalid", 0),  # nor is a byte-order mark
    ("1\x0b", "invalid", 1),
    ("[1\u2028]", "invalid", 2),
]


@pytest.mark.parametrize(("text", "status", "offset"), CASES)
def test_hand_written_verdicts(text: str, status: str, offset: int | None) -> None:
    assert (status == "complete") == strictly_valid(text)  # the table itself is right
    for frags in ([text], list(text)):
        p = parse(frags)
        assert p.status == status, (p.error, p.error_offset)
        assert p.error_offset == offset, p.error
        assert (p.error is not None) == (status == "invalid")
        if status == "complete":
            assert same(p.value(), strict_loads(text))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("01", "leading zero"),
        ("-01", "leading zero"),
        ('"a\nb"', "control character"),
        ("[1}", "closes"),
        ('"\\x"', "invalid escape"),
        ('"\\u12G4"', "\\u escape"),
        ("{} x", "after the end"),
        ("[1,]", "expected a value"),
        ('{"a":1,}', "expected a key"),
        ('{"a" 1}', "expected ':'"),
        ("[1 2]", "expected ',' or ']'"),
        ("trUe", "literal"),
        ("1.e5", "unfinished number"),
    ],
)
def test_error_messages_name_the_problem(text: str, words: str) -> None:
    p = parse(text)
    assert p.status == "invalid"
    assert p.error is not None and words in p.error


def test_top_level_number_completes_only_when_something_follows() -> None:
    p = parse("12", finish=False)
    assert (p.status, p.in_token, p.pending) == ("streaming", True, "")
    p.feed("3")
    assert p.status == "streaming"
    assert p.value() == 123
    p.finish()
    assert (p.status, p.in_token) == ("complete", False)
    assert p.value() == 123
    q = parse("12 ", finish=False)
    assert (q.status, q.in_token) == ("complete", False)


def test_pending_in_token_depth() -> None:
    p = parse('{"a": [1, {"b": "x', finish=False)
    assert p.status == "streaming"
    assert p.pending == '"}]}'
    assert p.in_token is True
    assert p.depth == 3
    assert p.value() == {"a": [1, {"b": "x"}]}
    p.feed('"}]}')
    assert (p.status, p.pending, p.in_token, p.depth) == ("complete", "", False, 0)
    assert p.value() == {"a": [1, {"b": "x"}]}


@pytest.mark.parametrize(
    ("text", "pending", "in_token", "depth", "status"),
    [
        ("", "", False, 0, "waiting"),
        ("  \n", "", False, 0, "waiting"),
        ("tr", "ue", True, 0, "streaming"),
        ("[nu", "ll]", True, 1, "streaming"),
        ('{"a": tr', "ue}", True, 1, "streaming"),
        ('{"a": f', "alse}", True, 1, "streaming"),
        ("[1", "]", True, 1, "streaming"),
        ("[1 ", "]", False, 1, "streaming"),
        ("[1,", "]", False, 1, "streaming"),
        ("[-", "]", True, 1, "streaming"),
        ("[1.", "]", True, 1, "streaming"),
        ("[1e+", "]", True, 1, "streaming"),
        ('{"a"', "}", False, 1, "streaming"),
        ('{"a":', "}", False, 1, "streaming"),
        ('{"a', '"}', True, 1, "streaming"),
        ('"ab\\', '"', True, 0, "streaming"),
        ('"\\u12', '"', True, 0, "streaming"),
        ('[[{"k": [', "]}]]", False, 4, "streaming"),
        ('[[{"k": []', "}]]", False, 3, "streaming"),
        ("{}", "", False, 0, "complete"),
        ('"x"', "", False, 0, "complete"),
        ("null", "", False, 0, "complete"),
    ],
)
def test_pending_table(text: str, pending: str, in_token: bool, depth: int, status: str) -> None:
    for frags in ([text], list(text)):
        p = parse(frags, finish=False)
        assert (p.pending, p.in_token, p.depth, p.status) == (pending, in_token, depth, status)


def test_finish_ends_a_number_but_not_an_open_container() -> None:
    p = parse("[1")
    assert (p.status, p.in_token, p.pending, p.depth) == ("truncated", False, "]", 1)
    assert p.value() == [1]
    p = parse("[1.")
    assert (p.status, p.in_token) == ("truncated", True)
    assert p.value() == [1]
    assert parse("-").value() is None


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("", None),
        ("  ", None),
        ("-", None),
        ("nul", None),
        ("tru", None),
        ("[", []),
        ("{", {}),
        ('"abc', "abc"),
        ('"ab\\', "ab"),
        ('"ab\\u00', "ab"),
        ('"ab\\n', "ab\n"),
        ('"\\ud83d\\ude', "\ud83d"),
        ("[1, 2,", [1, 2]),
        ("[1, 2, ", [1, 2]),
        ("[1, 2, tr", [1, 2]),
        ("[1, 2, -", [1, 2]),
        ("[1, 2.", [1, 2]),
        ("[1, 2.5e", [1, 2.5]),
        ("[1, 2.5e-", [1, 2.5]),
        ("[1, -0", [1, 0]),
        ('["x\\', ["x"]),
        ('["x\\u00', ["x"]),
        ('["a,",', ["a,"]),
        ('{"a": 1, "b', {"a": 1}),
        ('{"a": 1, "b"', {"a": 1}),
        ('{"a": 1, "b": ', {"a": 1}),
        ('{"a": 1, "b": t', {"a": 1}),
        ('{"a": 1, "b": -', {"a": 1}),
        ('{"a": 1, "b": 1.', {"a": 1, "b": 1}),
        ('{"a": 1, "b": 1e-', {"a": 1, "b": 1}),
        ('{"a": 1, "b": "x', {"a": 1, "b": "x"}),
        ('{"a": 1, "b\\', {"a": 1}),
        ('{"a": 1, "b": [', {"a": 1, "b": []}),
        ('{"a": 1, "b": {', {"a": 1, "b": {}}),
        ('{"e1": 1e', {"e1": 1}),
        ('{"a": {"b": [1, {"c"', {"a": {"b": [1, {}]}}),
        ("[1, 2]   ", [1, 2]),
        ("null", None),
        ("[null, true, false", [None, True, False]),
        ("[1, x", None),  # invalid
    ],
)
def test_value_of_a_prefix(text: str, value: Any) -> None:
    for frags in ([text], list(text)):
        assert same(parse(frags, finish=False).value(), value)


def test_invalid_text_keeps_the_rest() -> None:
    p = parse("[1, x, 2]", finish=False)
    assert (p.status, p.error_offset, p.invalid_text) == ("invalid", 4, "x, 2]")
    p.feed(" more")
    assert p.invalid_text == "x, 2] more"
    assert p.size == 14
    assert p.value() is None
    p.finish()
    assert p.status == "invalid"


def test_leading_zero_after_minus_splits_view_at_error_offset() -> None:
    # regression: '-01' in one fragment once left the valid '0' in invalid_text, not the view
    text = "[-01]"
    for frags in ([text], ["[-0", "1]"]):
        p = parse(frags)
        assert p.error_offset == 3
        assert p.invalid_text == text[p.error_offset :] == "1]"
        assert p.pretty() == "[\n  -0"


# -- 5. tail() -------------------------------------------------------------------------------


def test_tail_is_the_end_of_the_pretty_print() -> None:
    doc = {f"key{i}": [i, {"x": "y" * i}, None] for i in range(30)}
    text = json.dumps(doc)
    p = parse(text)
    lines = p.pretty().split("\n")
    assert len(lines) > 100
    assert p.tail(5) == lines[-5:]
    assert p.tail(1) == lines[-1:]
    assert p.tail(0) == []
    assert p.tail(-3) == []
    assert p.tail(10_000) == lines
    assert p.line_count() == len(lines)
    for width in (2, 5, 10, 30):
        got = p.tail(40, width)
        assert got == [cut(x, width) for x in lines[-40:]]
        assert all(len(x) <= width for x in got)
    # long lines: cut from the left, with an ellipsis, the end kept
    q = parse('{"short": 1, "long": "' + "abcdefghij" * 20, finish=False)
    got = q.tail(3, 20)
    assert got[0] == "{"
    assert got[1] == '  "short": 1,'
    assert got[2] == ELLIPSIS + ("abcdefghij" * 20)[-19:]
    assert len(got[2]) == 20


def test_tail_on_an_empty_parser() -> None:
    p = PartialJSON()
    assert p.tail(3) == [""]
    assert p.tail(3, 10) == [""]
    assert p.pretty() == ""
    assert p.line_count() == 1


def test_tail_width_one() -> None:
    # regression: '\u2026' + line[-(width - 1):] with width 1 was the ellipsis + the whole line
    p = parse('["' + "x" * 50 + '", 1', finish=False)
    assert p.tail(3, 1) == ["[", ELLIPSIS, ELLIPSIS]
    q = parse('"' + "x" * 200, finish=False)
    assert q.tail(1, 1) == [ELLIPSIS]
    q.feed('"')
    assert q.tail(1, 1) == [ELLIPSIS]


@pytest.mark.parametrize(
    ("indent", "text", "width", "line"),
    [(0, '["abc"', 5, '"abc"'), (0, '{"a": 1', 6, '"a": 1'), (2, "[1]", 1, "]")],
)
def test_tail_keeps_a_line_that_fits_exactly(indent: int, text: str, width: int, line: str) -> None:
    p = PartialJSON(indent=indent)
    p.feed(text)
    assert p.tail(1, width) == [line]


@hsettings(200)
@given(text=json_docs(), data=st.data())
def test_tail_calls_do_not_disturb_anything(text: str, data: st.DataObject) -> None:
    """Interleaved tail(n, width) calls (which regroup the line's pieces) give the cut of the
    pretty print every time, and the parser ends exactly as one never asked for a tail.

    (indent 0 and width 1 are left to test_tail_keeps_a_line_that_fits_exactly, a known bug.)
    """
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=20), label="cuts")
    indent = data.draw(st.sampled_from([2, 4, 1]), label="indent")
    viewed, plain = PartialJSON(indent=indent), PartialJSON(indent=indent)
    for frag in pieces(text, cuts):
        viewed.feed(frag)
        plain.feed(frag)
        for _ in range(data.draw(st.integers(0, 3), label="calls")):
            n = data.draw(st.integers(1, 4), label="lines")
            w = data.draw(st.integers(2, 40) | st.none(), label="width")
            assert viewed.tail(n, w) == expected_tail(plain.pretty(), n, w)
    viewed.finish()
    plain.finish()
    assert snapshot(viewed) == snapshot(plain)


def _huge_string_source(n: int) -> str:
    """About ``n`` characters of JSON string body, escapes included (source form)."""
    rnd = random.Random(20240601)
    parts: list[str] = []
    size = 0
    alphabet = ["abcdefgh", "ijklmnop", "é😀 ", "\\n", "\\u00e9", '\\"', "\\\\", "\\/", "xyz"]
    while size < n:
        s = rnd.choice(alphabet)
        parts.append(s)
        size += len(s)
    return "".join(parts)


def test_tail_of_a_huge_string_after_every_fragment() -> None:
    body = _huge_string_source(200_000)
    text = '"' + body + '"'
    p = PartialJSON()
    for k in range(0, len(text), 4):
        p.feed(text[k : k + 4])
        end = min(k + 4, len(text))
        got = p.tail(3, 80)
        want = text[:end] if end <= 80 else ELLIPSIS + text[end - 79 : end]
        assert got == [want], end
        if k % 20_000 == 0:  # now and then, the whole view (joins the pieces again)
            assert p.pretty() == text[:end]
            assert p.tail(2) == [text[:end]]
    assert p.status == "complete"
    p.finish()
    assert p.value() == json.loads(text)
    assert p.size == len(text)
    assert p.line_count() == 1


def test_tail_of_a_huge_string_inside_an_object() -> None:
    body = _huge_string_source(200_000)
    text = '{"a": 1, "big": "' + body + '"}'
    key = text.index('"big"')
    p = PartialJSON()
    for k in range(0, len(text), 4):
        p.feed(text[k : k + 4])
        end = min(k + 4, len(text))
        got = p.tail(3, 80)
        if key < end < len(text) - 1:  # on the line of "big", before the '}'
            line = "  " + text[key:end]
            want = line if len(line) <= 80 else ELLIPSIS + text[end - 79 : end]
            assert got == ["{", '  "a": 1,', want], end
        if k % 25_000 == 0:
            assert got == expected_tail(p.pretty(), 3, 80)
    p.finish()
    assert p.status == "complete"
    assert p.tail(3, 80) == ['  "a": 1,', ELLIPSIS + text[-80:-1], "}"]
    assert p.value() == json.loads(text)


def test_one_fragment_holding_a_huge_string() -> None:
    body = "x" * 100_000
    p = parse('["' + body, finish=False)
    assert p.tail(1, 10) == [ELLIPSIS + "x" * 9]
    p.feed("yz")
    assert p.tail(1, 10) == [ELLIPSIS + "x" * 7 + "yz"]
    p.feed('"]')
    assert p.tail(2, 10) == [ELLIPSIS + "x" * 6 + 'yz"', "]"]
    assert p.value() == [body + "yz"]


# -- 6. deep nesting -------------------------------------------------------------------------

DEEP = 100_000


@pytest.mark.parametrize("fragment", [DEEP, 7])
def test_deep_nesting_keeps_indentation_bounded(fragment: int) -> None:
    text = "[" * DEEP
    p = PartialJSON()
    for k in range(0, DEEP, fragment):
        p.feed(text[k : k + fragment])
    bound = len("  ") * MAX_INDENT_DEPTH + 1
    assert (p.status, p.depth) == ("streaming", DEEP)
    assert p.pending == "]" * DEEP
    assert p.line_count() == DEEP
    tail = p.tail(5)
    assert tail == [" " * (2 * MAX_INDENT_DEPTH) + "["] * 5
    assert all(len(x) <= bound for x in p.tail(50, 200))
    assert max(map(len, p.pretty().split("\n"))) == bound
    closing = "]" * DEEP
    for k in range(0, DEEP, fragment):
        p.feed(closing[k : k + fragment])
    assert (p.status, p.depth, p.pending) == ("complete", 0, "")
    assert p.tail(1) == ["]"]
    assert max(map(len, p.pretty().split("\n"))) == bound + 1  # the innermost "[]"
    p.finish()
    assert p.status == "complete"
    assert p.size == 2 * DEEP


def test_deep_objects_and_a_deep_error() -> None:
    p = parse('{"a": ' * DEEP, finish=False)
    assert (p.status, p.depth) == ("streaming", DEEP)
    assert all(len(x) <= 2 * MAX_INDENT_DEPTH + len('"a": {') for x in p.tail(100))
    q = parse("[" * DEEP + "}")
    assert (q.status, q.error_offset) == ("invalid", DEEP)


def test_value_of_a_deep_value_does_not_raise() -> None:
    # regression: value() let json.loads raise RecursionError on a hostile depth
    for text in ("[" * DEEP, "[" * DEEP + "]" * DEEP, '{"a": ' * DEEP):
        v = parse(text).value()
        assert v is None or isinstance(v, list | dict)


# -- 7. size ---------------------------------------------------------------------------------


@hsettings(200)
@given(text=any_text, data=st.data())
def test_size_counts_every_character_fed(text: str, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(text)), max_size=8), label="cuts")
    p = PartialJSON()
    fed = 0
    for frag in pieces(text, cuts):
        p.feed(frag)
        fed += len(frag)
        assert p.size == fed
    p.finish()
    assert p.size == len(text)
    extra = data.draw(st.text(max_size=5), label="extra")
    if p.status == "invalid":  # after the error the text is still counted
        p.feed(extra)
        assert p.size == len(text) + len(extra)


def test_size_counts_code_points() -> None:
    p = parse('"😀é\\u00e9"')
    assert p.size == 10
