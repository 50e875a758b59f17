"""A Responses delta already checked in full, cut around what changes from one delta to the next.

Nearly every event of a long Responses stream is the next delta of the string being streamed
(``{"type":"response.output_text.delta","item_id":...,"output_index":0,"content_index":0,
"delta":"...","sequence_number":N}``). Once one passed every rule, an event that is the same
text but for its ``delta`` string, its ``obfuscation`` padding and its sequence number parses
to the same object but for those: the same schema verdict, the same references, the same
part. It needs no parse: its delta is appended where the last one went, and its number must
follow the last (else it takes the full path, which says what is wrong). Any event that misses
the template drops it, so every change of state goes the full way. ``Settings.memo`` off gives
the very same diagnostics (tests/test_memo.py).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

import orjson

from sseconform.jsonstr import JSON_STRING, find_literal
from sseconform.rules.responses.state import Acc

__all__ = ["DeltaTemplate", "make_template"]

#: A JSON integer as a sequence number is written (no sign, no leading zero).
INT = re.compile(r"0|[1-9][0-9]*")
PROBE = "sseconform-template-probe"
PROBE_SEQ = 987654321987
VALUE, PAD, SEQ = "value", "pad", "seq"


class DeltaTemplate:
    """The segments of a checked delta event around its holes, as one regular expression
    (matched in C, one call per event), and where its deltas go."""

    __slots__ = ("event", "pattern", "target")

    def __init__(
        self, event: str | None, segments: tuple[str, ...], holes: tuple[str, ...], target: Acc
    ) -> None:
        self.event = event  # the `event:` line the checked event had
        self.pattern = _pattern(segments, holes)
        self.target = target

    def match(self, d: str) -> tuple[str, int] | None:
        """The delta's text and the sequence number when ``d`` fits, else None."""
        m = self.pattern.fullmatch(d)
        if m is None:
            return None
        literal = m.group(VALUE)
        # the pattern took it as one JSON string: no backslash, nothing to unescape
        text = literal[1:-1] if "\\" not in literal else orjson.loads(literal)
        return text, int(m.group(SEQ))


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
    data: str, obj: dict[str, Any], event: str | None, target: Acc
) -> DeltaTemplate | None:
    """Cut ``data`` around its ``delta``, its ``obfuscation`` and its sequence number,
    proving the cut with a probe parse; None when that cannot be shown."""
    if PROBE in data:
        return None
    found: list[tuple[tuple[int, int] | None, str]] = [
        (find_literal(data, "delta"), VALUE),
        (_seq_span(data), SEQ),
    ]
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
    fill = {VALUE: f'"{PROBE}-v"', PAD: f'"{PROBE}-p"', SEQ: str(PROBE_SEQ)}
    text = "".join(seg + fill[h] for seg, h in zip(segments, holes, strict=False)) + segments[-1]
    try:
        probe = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if type(probe) is not dict or probe.get("delta") != f"{PROBE}-v":
        return None
    if probe.get("sequence_number") != PROBE_SEQ:
        return None
    if PAD in holes and probe.get("obfuscation") != f"{PROBE}-p":
        return None
    probe["delta"] = obj.get("delta")
    probe["sequence_number"] = obj.get("sequence_number")
    if PAD in holes:
        probe["obfuscation"] = obj.get("obfuscation")
    if probe != obj:
        return None  # the cut changed something else: not worth proving what
    return DeltaTemplate(event, segments, holes, target)
