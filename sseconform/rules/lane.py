"""Runs of delta events matched on their bytes: what ``check``'s lane takes without decoding.

A grammar's delta template (``delta_template.py``) is the text of one checked delta event
with holes where its value string, its sequence number and its padding go. Here the events
that follow it, cut at their blank lines, are matched against it as bytes: an event fits when
it is the template's text (written in the plain form the SSE decoder reads without a remark:
``event: name``, ``data: ``, LF) with a JSON string, exactly as orjson reads one, in each
string hole and a JSON integer in the number's. Such an event parses to the template's object
but for those values, so it needs no SSE decoding and no JSON parse. The values are checked in
bulk: one UTF-8 decode of all the literals of a run, and one test that none holds a quote, a
backslash or a control character (else each is checked on its own).
"""

from __future__ import annotations

import re
from functools import lru_cache

import orjson

from sseconform.jsonstr import JSON_STRING_BYTES

__all__ = ["Run", "take_holes", "take_one_hole"]

#: A JSON integer as a sequence number is written (no sign, no leading zero, at most 19).
INT_BYTES = re.compile(rb"0|[1-9][0-9]{0,18}")
#: How much of the text between two holes the skeleton of a template names.
ANCHOR = 16
QUOTE = 34  # b'"'


class Run:
    """Consecutive events that fit a template: how many, their values, their sequence
    numbers (none when the template has no number)."""

    __slots__ = ("_all", "literals", "n", "plain", "seqs")

    def __init__(
        self, n: int, seqs: list[int], text: str | None, literals: list[bytes], *, plain: bool
    ) -> None:
        self.n = n
        self.seqs = seqs
        self._all = text  # every value, one after the other, when known
        self.literals = literals  # the value literals, quotes and all
        self.plain = plain  # no literal holds an escape: each one's text is what lies between

    @classmethod
    def one(cls, text: str, seq: int) -> Run:
        """A single delta the template matched on the full path (its decoded data)."""
        return cls(1, [seq], text, [], plain=False)

    def texts(self) -> list[str]:
        """Each value on its own."""
        if not self.literals:
            return [] if self._all is None else [self._all]
        if self.plain:
            return [lit[1:-1].decode() for lit in self.literals]
        return [orjson.loads(lit) for lit in self.literals]

    def text(self, k: int) -> str:
        """The first ``k`` values, one after the other."""
        if k == self.n and self._all is not None:
            return self._all
        if self.plain:  # plain literals hold no quote but their own two
            return b"".join(self.literals[:k]).decode().replace('"', "")
        return "".join(orjson.loads(lit) for lit in self.literals[:k])


def _run(literals: list[bytes], seqs: list[int], others: list[bytes], quoted: bool) -> Run:
    """The run of ``literals`` that are valid, from the first: UTF-8 (``others``, the
    padding, too) and, unless the matcher proved it (``quoted``), one JSON string each."""
    n = len(literals)
    try:
        joined = b"".join(literals).decode()
        if others:
            b"".join(others).decode()
    except UnicodeDecodeError:
        pass
    else:
        if "\\" not in joined and (quoted or _plain(joined, n)):
            return Run(n, seqs, joined.replace('"', ""), literals, plain=True)
    k = 0
    plain = True
    while k < n:
        lit = literals[k]
        try:
            lit.decode()
            if others:
                others[k].decode()
        except UnicodeDecodeError:
            break
        if not quoted and JSON_STRING_BYTES.fullmatch(lit) is None:
            break
        plain = plain and b"\\" not in lit
        k += 1
    return Run(k, seqs[:k], None, literals[:k], plain=plain)


def _plain(joined: str, n: int) -> bool:
    """``n`` literals, each quoted at both ends, joined: each is one JSON string with nothing
    to unescape (no other quote, no backslash, no control character)."""
    return joined.count('"') == 2 * n and joined.isprintable()


def take_one_hole(blocks: list[bytes], i: int, limit: int, head: bytes, tail: bytes) -> Run:
    """A template whose only hole is its value (a chat chunk's content or arguments, an
    Anthropic delta): each block is ``head``,
    one JSON string, ``tail``."""
    literals: list[bytes] = []
    lh = len(head)
    lt = len(tail)
    least = lh + lt + 2
    for k in range(i, len(blocks)):
        blk = blocks[k]
        size = len(blk)
        if (
            not least <= size <= limit
            or blk[lh] != QUOTE
            or blk[size - lt - 1] != QUOTE
            or not blk.startswith(head)
            or not blk.endswith(tail)
        ):
            break
        literals.append(blk[lh : size - lt])
    return _run(literals, [], [], quoted=False)


def take_holes(
    blocks: list[bytes], i: int, limit: int, parts: tuple[bytes, ...], holes: tuple[str, ...]
) -> Run:
    """A template with several holes (a Responses delta: its value, its sequence number,
    maybe its padding). After the template's first piece, one regular expression, compiled
    once for every template of its shape, cuts the rest of a block into holes and pieces; the
    block fits when its pieces are the template's (the short ones are written into the
    expression, the long ones compared)."""
    head = parts[0]
    at = len(head)
    rest = parts[1:]
    shape = tuple((p, False) if len(p) <= SHORT else (p[-ANCHOR:], True) for p in rest)
    pattern, groups, long = _skeleton(shape, holes)
    value = groups[holes.index("value")]
    seq = groups[holes.index("seq")] if "seq" in holes else -1
    pad = groups[holes.index("pad")] if "pad" in holes else -1
    literals: list[bytes] = []
    seqs: list[int] = []
    pads: list[bytes] = []
    for k in range(i, len(blocks)):
        blk = blocks[k]
        if len(blk) > limit or not blk.startswith(head):
            break
        m = pattern.fullmatch(blk, at)
        if m is None:
            break
        g = m.groups()
        if long and any(g[group] != rest[j] for j, group in long):
            break
        literals.append(g[value])
        if seq >= 0:
            seqs.append(int(g[seq]))
        if pad >= 0:
            pads.append(g[pad])
    return _run(literals, seqs, pads, quoted=True)


#: A piece of a template this long or shorter is written into its skeleton as it is.
SHORT = 80


@lru_cache(maxsize=64)
def _skeleton(
    shape: tuple[tuple[bytes, bool], ...], holes: tuple[str, ...]
) -> tuple[re.Pattern[bytes], tuple[int, ...], tuple[tuple[int, int], ...]]:
    """Each hole (a JSON string or integer, exactly as orjson reads it) and the piece after
    it: a short piece as it is; a long one (only its last ``ANCHOR`` bytes are in ``shape``)
    as any bytes that end in those, captured for the caller to compare. With the group of
    each hole, and of each long piece (its index among the pieces, its group)."""
    out = []
    hole_groups: list[int] = []
    long_groups: list[tuple[int, int]] = []
    for j, (hole, (piece, is_long)) in enumerate(zip(holes, shape, strict=True)):
        body = INT_BYTES.pattern if hole == "seq" else JSON_STRING_BYTES.pattern
        out.append(b"(" + body + b")")
        hole_groups.append(len(hole_groups) + len(long_groups))
        if not is_long:
            out.append(re.escape(piece))
        else:
            out.append(b"(.*?" + re.escape(piece) + b")")
            long_groups.append((j, len(hole_groups) + len(long_groups)))
    return re.compile(b"".join(out), re.DOTALL), tuple(hole_groups), tuple(long_groups)
