"""The chat grammar's fast path: a frame already checked in full, as a template of the next.

A mid-stream content delta and the next arguments fragment of the call being streamed make up
nearly every long stream; once one such frame checked clean, a frame that differs from it only
in the literal holding the value (and OpenAI's ``obfuscation`` padding) parses to the same
object but for those strings, so it has the same verdict and needs no parse.
"""

from __future__ import annotations

from typing import Any

import orjson

from sseconform.jsonstr import JSON_STRING, find_literal
from sseconform.rules.chat.state import Call

__all__ = ["Template", "make_template"]

PROBE = "sseconform-template-probe"


class Template:
    """A frame already checked in full, cut around the string literals that change.

    A frame that is ``seg0 + lit + seg1 (+ lit + seg2)`` with each ``lit`` one JSON string
    parses to the very object of the template with other strings in those places: same
    schema verdict, same rule effects. One hole carries the value (delta content or an
    arguments fragment); another may be OpenAI's per-chunk ``obfuscation`` padding. So long
    runs of deltas need no parse. Any frame that misses the template drops it, so every
    change of state goes the full way.
    """

    __slots__ = ("call", "head", "segments", "tail", "value_hole")

    def __init__(self, segments: tuple[str, ...], value_hole: int, call: Call | None) -> None:
        self.segments = segments
        self.head = segments[0]
        self.tail = segments[-1]
        self.value_hole = value_hole
        self.call = call  # None: the value is delta.content; else this call's arguments

    def value_literal(self, d: str) -> str | None:
        """The value's literal when ``d`` fits the template, else None."""
        if not d.startswith(self.head):
            return None
        segs = self.segments
        if len(segs) == 2:  # one hole: the literal is whatever lies between head and tail
            end = len(d) - len(self.tail)
            if end < len(self.head) + 2 or not d.endswith(self.tail):
                return None
            literal = d[len(self.head) : end]
            return literal if JSON_STRING.fullmatch(literal) else None
        if len(segs) == 3:  # two holes (content and obfuscation): match the first, the last
            end = len(d) - len(self.tail)
            if not d.endswith(self.tail):
                return None
            m = JSON_STRING.match(d, len(self.head))
            if m is None or not d.startswith(segs[1], m.end()):
                return None
            second = m.end() + len(segs[1])
            if second > end or not JSON_STRING.fullmatch(d, second, end):
                return None
            return m.group() if self.value_hole == 0 else d[second:end]
        pos = len(self.head)
        value = None
        for j in range(1, len(segs)):
            m = JSON_STRING.match(d, pos)
            if m is None:
                return None
            if j - 1 == self.value_hole:
                value = m.group()
            pos = m.end()
            if not d.startswith(segs[j], pos):
                return None
            pos += len(segs[j])
        return value if pos == len(d) else None


def make_template(data: str, obj: dict[str, Any], value: str, call: Call | None) -> Template | None:
    """Cut ``data`` around the literal holding ``value`` (delta content or an arguments
    fragment) and around ``obfuscation`` if present, proving every cut with a probe parse;
    None when that cannot be shown."""
    if PROBE in data:  # the probe must be text no frame holds, or it proves nothing
        return None
    key = "arguments" if call is not None else "content"
    value_span = find_literal(data, key)
    if value_span is None:
        return None
    spans = [value_span]
    if "obfuscation" in obj:
        pad = find_literal(data, "obfuscation")
        if pad is None:
            return None
        spans.append(pad)
    spans.sort()
    probes = [f'"{PROBE}-{n}"' for n in range(len(spans))]
    cut = [0]
    for a, b in spans:
        cut += [a, b]
    cut.append(len(data))
    segments = tuple(data[cut[k] : cut[k + 1]] for k in range(0, len(cut), 2))
    try:
        probe = orjson.loads(
            "".join(seg + p for seg, p in zip(segments, [*probes, ""], strict=True))
        )
        delta = probe["choices"][0]["delta"]
        holder = delta["tool_calls"][0]["function"] if call is not None else delta
        hole = spans.index(value_span)
        if holder[key] != probes[hole][1:-1]:
            return None  # the literal is not the value that counts
        holder[key] = value
        if len(spans) == 2:
            if probe["obfuscation"] != probes[1 - hole][1:-1]:
                return None
            probe["obfuscation"] = obj["obfuscation"]
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError):
        return None
    if probe != obj:
        return None
    return Template(segments, hole, call)
