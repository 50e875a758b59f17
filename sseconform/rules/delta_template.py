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
same diagnostics (tests/test_memo.py). The cut and its proof, and the matching of the events
that follow on their bytes (the checker's lane), are the byte lane's (``sse/template.py``);
here is what ``check`` adds: the match of a decoded event, and where its value goes.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from sseconform.jsonstr import JSON_STRING
from sseconform.rules.lane import JSON
from sseconform.sse.template import INT as INT_PATTERN
from sseconform.sse.template import NUM, SEQ, VALUE, Cut, Template, cut

__all__ = ["DeltaTemplate", "make_template"]

#: A JSON integer as a sequence number is written (no sign, no leading zero).
INT = re.compile(INT_PATTERN)  # at most 19 digits: int() of it never refuses


class DeltaTemplate(Template):
    """The segments of a checked delta event around its holes, and where its values go.

    A decoded event is matched piece by piece (``startswith`` and one JSON string at a time);
    a template that keeps matching is compiled into one regular expression (one C call per
    event), which pays for its compilation only on a long run of deltas. The lane matches
    whole events on their bytes (``take``)."""

    __slots__ = ("hits", "pattern", "taken", "target")

    #: Matches before the template is compiled (a compile costs about a thousand matches).
    COMPILE_AFTER = 64

    def __init__(self, cut: Cut, target: Any, eol: bytes = b"\n") -> None:
        super().__init__(cut, JSON, eol)
        self.target = target  # where the value goes: the checker that made it knows
        self.hits = 0  # matches of decoded events (match)
        self.taken = 0  # events the lane took on their bytes
        self.pattern: re.Pattern[str] | None = None

    def match(self, d: str) -> tuple[str, int, tuple[int, ...]] | None:
        """The value's text, the sequence number (-1: none) and the number holes' values
        when ``d`` fits, else None."""
        pattern = self.pattern
        if pattern is None:
            got = self.fits(d)  # the lane's own reading of a decoded event (sse/template.py)
            if got is None:
                return None
            self.hits += 1
            if self.hits == self.COMPILE_AFTER and NUM not in self.holes:
                self.pattern = _pattern(self.segments, self.holes)
            return _text(got[0]), got[1], got[2]
        m = pattern.fullmatch(d)
        if m is None:
            return None
        return _text(m.group(VALUE)), (int(m.group(SEQ)) if SEQ in self.holes else -1), ()


def _text(literal: str) -> str:
    """A literal the matcher took as one JSON string: no backslash, nothing to unescape."""
    if "\\" not in literal:
        return literal[1:-1]
    text: str = JSON.loads(literal)
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


def make_template(
    data: str,
    obj: dict[str, Any],
    event: str | None,
    path: tuple[str | int, ...],
    target: Any,
    *,
    seq: bool,
    numbers: str | None = None,
    eol: bytes = b"\n",
) -> DeltaTemplate | None:
    """Cut ``data`` around the value at ``path`` (its last key's string), its top-level
    ``obfuscation``, (``seq``) its top-level sequence number and every whole number in the
    object at the top-level key ``numbers`` (counts that grow), proving the cut with a probe
    parse (``sse/template.py``); None when that cannot be shown."""
    found = cut(data, obj, path, JSON, event=event, seq=seq, numbers=numbers)
    return None if found is None else DeltaTemplate(found, target, eol)
