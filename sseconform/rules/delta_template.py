"""A delta event already checked in full, cut around what changes from one delta to the next.

Nearly every event of a long stream, in every grammar, is the next delta of the string being
streamed (a chunk's ``"delta":{"content":"..."}`` or its call's next ``"arguments"``,
``{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"..."}}``,
``{"type":"response.output_text.delta",...,"delta":"...","sequence_number":N}``). Once one
passed every rule, an event that is the same text but
for its value string, its ``obfuscation`` padding and its sequence number parses to the same
object but for those: the same schema verdict, the same references, the same target. It needs
no parse: its value goes where the last one went, and a sequence number must follow the last
(else it takes the full path, which says what is wrong). Any event that misses the template
drops it, so every change of state goes the full way. ``Settings.memo`` off gives the very
same diagnostics (tests/test_memo.py). Its ``take`` matches the events that follow on their
bytes (``lane.py``), for the checker's lane.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import orjson

from sseconform.jsonstr import JSON_STRING, find_literal
from sseconform.rules.lane import Run, take_holes, take_one_hole

__all__ = ["DeltaTemplate", "make_template"]

#: A JSON integer as a sequence number is written (no sign, no leading zero).
INT = re.compile(r"0|[1-9][0-9]{0,18}")  # at most 19 digits: int() of it never refuses
PROBE = "sseconform-template-probe"
PROBE_SEQ = 987654321987
VALUE, PAD, SEQ = "value", "pad", "seq"


class DeltaTemplate:
    """The segments of a checked delta event around its holes, and where its values go.

    The first events are matched piece by piece (``startswith`` and one JSON string at a
    time); a template that keeps matching is compiled into one regular expression (one C call
    per event), which pays for its compilation only on a long run of deltas."""

    __slots__ = (
        "block_parts",
        "event",
        "head",
        "hits",
        "holes",
        "pattern",
        "prefix",
        "segments",
        "taken",
        "target",
    )

    #: Matches before the template is compiled (a compile costs about a thousand matches).
    COMPILE_AFTER = 64

    def __init__(
        self, event: str | None, segments: tuple[str, ...], holes: tuple[str, ...], target: Any
    ) -> None:
        self.event = event  # the `event:` line the checked event had
        self.segments = segments
        self.head = segments[0]
        self.holes = holes
        self.target = target  # where the value goes: the checker that made it knows
        self.hits = 0  # matches of decoded events (match)
        self.taken = 0  # events the lane took on their bytes
        self.pattern: re.Pattern[str] | None = None
        # the same template over the raw bytes of a whole SSE event (take)
        name = b"" if event is None else b"event: " + event.encode() + b"\n"
        self.prefix = name + b"data: "  # what comes before the data: the decoder's plain form
        self.block_parts: tuple[bytes, ...] = ()

    def match(self, d: str) -> tuple[str, int] | None:
        """The value's text and the sequence number (-1: none) when ``d`` fits, else None."""
        pattern = self.pattern
        if pattern is None:
            got = self._walk(d)
            if got is not None:
                self.hits += 1
                if self.hits == self.COMPILE_AFTER:
                    self.pattern = _pattern(self.segments, self.holes)
            return got
        m = pattern.fullmatch(d)
        if m is None:
            return None
        return _text(m.group(VALUE)), (int(m.group(SEQ)) if SEQ in self.holes else -1)

    def _walk(self, d: str) -> tuple[str, int] | None:
        if not d.startswith(self.head):
            return None
        segs = self.segments
        pos = len(self.head)
        holes = self.holes
        if len(holes) == 1:  # the value alone (Anthropic's deltas): what lies between the ends
            tail = segs[1]
            end = len(d) - len(tail)
            if end < pos + 2 or not d.endswith(tail):
                return None
            m = JSON_STRING.fullmatch(d, pos, end)
            return None if m is None else (_text(m.group()), -1)
        literal = ""
        seq = -1
        for j, hole in enumerate(holes):
            m = (INT if hole == SEQ else JSON_STRING).match(d, pos)
            if m is None:
                return None
            if hole == VALUE:
                literal = m.group()
            elif hole == SEQ:
                seq = int(m.group())
            pos = m.end()
            nxt = segs[j + 1]
            if not d.startswith(nxt, pos):
                return None
            pos += len(nxt)
        if pos != len(d):
            return None
        return _text(literal), seq

    def take(self, blocks: list[bytes], i: int, limit: int) -> Run:
        """The run of ``blocks[i:]`` that fit, up to the first that does not (``lane.py``):
        events without their blank line, each at most ``limit`` bytes."""
        parts = self.block_parts
        if not parts:
            parts = self.block_parts = tuple(
                (self.prefix if j == 0 else b"") + seg.encode()
                for j, seg in enumerate(self.segments)
            )
        if len(parts) == 2:
            return take_one_hole(blocks, i, limit, parts[0], parts[1])
        return take_holes(blocks, i, limit, parts, self.holes)


def _text(literal: str) -> str:
    """A literal the matcher took as one JSON string: no backslash, nothing to unescape."""
    if "\\" not in literal:
        return literal[1:-1]
    text: str = orjson.loads(literal)
    return text


@lru_cache(maxsize=256)
def _pattern(segments: tuple[str, ...], holes: tuple[str, ...]) -> re.Pattern[str]:
    """The template as a pattern: its segments literally, a JSON string (exactly as orjson
    takes one) in each string hole, a JSON integer in the sequence number's."""
    parts = [re.escape(segments[0])]
    for hole, seg in zip(holes, segments[1:], strict=True):
        body = INT.pattern if hole == SEQ else JSON_STRING.pattern
        parts.append(f"(?P<{hole}>{body})" + re.escape(seg))
    return re.compile("".join(parts))


def _seq_span(data: str) -> tuple[int, int] | None:
    """The span of the one integer after ``"sequence_number":`` (None: none or several)."""
    needle = '"sequence_number":'
    i = data.find(needle)
    if i < 0 or data.find(needle, i + 1) >= 0:
        return None
    m = INT.match(data, i + len(needle))
    return (m.start(), m.end()) if m is not None else None


def make_template(
    data: str,
    obj: dict[str, Any],
    event: str | None,
    path: tuple[str | int, ...],
    target: Any,
    *,
    seq: bool,
) -> DeltaTemplate | None:
    """Cut ``data`` around the value at ``path`` (its last key's string), its top-level
    ``obfuscation`` and (``seq``) its top-level sequence number, proving the cut with a probe
    parse; None when that cannot be shown."""
    key = path[-1]
    if PROBE in data or type(key) is not str:
        return None
    found: list[tuple[tuple[int, int] | None, str]] = [(find_literal(data, key), VALUE)]
    if seq:
        found.append((_seq_span(data), SEQ))
    if "obfuscation" in obj:
        found.append((find_literal(data, "obfuscation"), PAD))
    spans: list[tuple[tuple[int, int], str]] = []
    for span, hole in found:
        if span is None:
            return None
        spans.append((span, hole))
    spans.sort()
    cut = [0]
    for (a, b), _ in spans:
        cut += [a, b]
    cut.append(len(data))
    segments = tuple(data[cut[k] : cut[k + 1]] for k in range(0, len(cut), 2))
    holes = tuple(hole for _, hole in spans)
    fill = {VALUE: f'"{PROBE}-v"', PAD: f'"{PROBE}-p"', SEQ: str(PROBE_SEQ)}  # -v, -p: hole[0]
    text = "".join(seg + fill[h] for seg, h in zip(segments, holes, strict=False)) + segments[-1]
    try:
        probe = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    # each marker where it counts (a key spelled another way, `"x\"delta":`, is not it), then
    # the original values put back in their places: the cut is right when that is the object
    # (the rest of the text is the same, so it parses to the same values, of the same types)
    places = {VALUE: path, SEQ: ("sequence_number",), PAD: ("obfuscation",)}
    for (a, b), hole in spans:
        marker: Any = PROBE_SEQ if hole == SEQ else f"{PROBE}-{hole[0]}"
        where = places[hole]
        parent = _at(probe, where[:-1])
        if _at(parent, where[-1:]) != marker:
            return None
        parent[where[-1]] = int(data[a:b]) if hole == SEQ else orjson.loads(data[a:b])
    try:
        if probe != obj:
            return None  # the cut is not exactly the holes: not worth proving more
    except RecursionError:
        return None  # nested past Python's stack: the full path takes it, as orjson did
    return DeltaTemplate(event, segments, holes, target)


def _at(obj: Any, path: tuple[str | int, ...]) -> Any:
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
