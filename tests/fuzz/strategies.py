"""Hypothesis strategies shared by the fuzz tests: bodies, JSON with hostile values, splits.

JSON is written by :func:`dumps`, not ``json.dumps``, so a value can be a :class:`Raw` piece of
text that no Python value serialises to: ``NaN``, a lone surrogate escape, 3000 nested
brackets, a number orjson rejects.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from sseconform.recording.format import RecordingReader
from sseconform.sse.decoder import SSEDecoder

ROOT = Path(__file__).resolve().parent.parent.parent
RECORDINGS = ROOT / "recordings"
CASES = ROOT / "tests" / "cases"

Obj = dict[str, Any]
#: One native or chunk event: its ``event:`` name (or None) and its data (a value or raw text).
NativeEvent = tuple[str | None, Any]


# -- JSON with hostile values ----------------------------------------------------------------


@dataclass(frozen=True)
class Raw:
    """JSON text written as is."""

    text: str


def nested(depth: int, kind: str = "[") -> Raw:
    if kind == "[":
        return Raw("[" * depth + "]" * depth)
    return Raw('{"a":' * depth + "1" + "}" * depth)


RAW_SPECIALS = [
    Raw("NaN"),
    Raw("Infinity"),
    Raw("-Infinity"),
    Raw("1e400"),
    Raw("-1e400"),
    Raw("123456789012345678901234567890"),
    Raw("-123456789012345678901234567890"),
    Raw("18446744073709551616"),
    Raw("1" + "0" * 400),
    Raw("-0"),
    Raw("1.0"),
    Raw("1E2"),
    Raw('"\\ud800"'),
    Raw('"\\udc00x\\ud83d"'),
    Raw('"a\\u0000b"'),
    Raw('"\\u001b[31mred\\u001b[0m\\u0007"'),
    Raw('"\\u009b2J"'),
    Raw('"[/x] [bold]b[/bold]"'),
    Raw('"\\u2028\\u2029\\u0085"'),
]

NASTY_TEXT = [
    "",
    " ",
    "\x1b[2J\x1b[H",
    "\x07bell",
    "\r\n",
    "\u2028",
    "\u202e",
    "[/x]",
    "[bold]",
    "😀" * 3,
    "\x00",
    "\ufeff",
    "a\nb",
    "[DONE]",
    "data: [DONE]\n\n",
    "{",
]


def dumps(value: Any, *, ascii: bool = False) -> str:
    """JSON text of ``value``; :class:`Raw` pieces are written as they are."""
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, dict):
        inner = ",".join(
            json.dumps(str(k), ensure_ascii=ascii) + ":" + dumps(v, ascii=ascii)
            for k, v in value.items()
        )
        return "{" + inner + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(dumps(v, ascii=ascii) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ascii)


def _clean_text(max_size: int = 24) -> st.SearchStrategy[str]:
    return st.one_of(st.text(max_size=max_size), st.sampled_from(NASTY_TEXT))


scalars: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 70),
    st.sampled_from([2**31, 2**53 + 1, 2**63, 2**64, -(2**63), 10**30]),
    st.floats(allow_nan=False, allow_infinity=False),
    _clean_text(),
)

#: Values that are not what a field should hold.
weird: st.SearchStrategy[Any] = st.one_of(
    scalars,
    st.sampled_from(RAW_SPECIALS),
    st.builds(nested, st.integers(1, 3000), st.sampled_from("[{")),
    st.lists(scalars, max_size=3),
    st.dictionaries(
        st.sampled_from(["a", "text", "type", "", "\x1b[2J", "[/x]", "😀"]), scalars, max_size=3
    ),
)

#: Indexes: the Emitter fills in the choices below a new one, so an index was a count (bug
#: B13: 10**12 hung translate_body; fixed, at most 128 choices now). Huge values stay a small
#: share of the draws, and no digit strings: int("9" * 12) would go the same way.
safe_index: st.SearchStrategy[Any] = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 40),
    st.floats(-3, 40),
    st.sampled_from(["0", "x", "", "1.5", [], [0], {}, {"a": 1}, Raw("NaN"), Raw("1e400")]),
    st.sampled_from([127, 128, 129, 10**6, 2**63, Raw("123456789012345678901234567890")]),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*prefix, i))


def _get(value: Any, path: tuple[Any, ...]) -> Any:
    for p in path:
        value = value[p]
    return value


def _copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_copy(v) for v in value]
    return value


MUTATIONS = ("replace", "delete", "add", "wrap", "stringify", "empty")


def mutate(draw: st.DrawFn, value: Any, times: int) -> Any:
    """``value`` with ``times`` random changes: a node replaced by a wrong-typed value, a key
    deleted or added, a value wrapped in a list, a number turned into a string, emptied."""
    value = _copy(value)
    for _ in range(times):
        paths = list(_paths(value))
        if draw(st.booleans()):  # half the time near the top, where the meaning is
            paths = [p for p in paths if len(p) <= 3]
        path = draw(st.sampled_from(paths))
        op = draw(st.sampled_from(MUTATIONS))
        key = path[-1] if path else None
        fill = safe_index if key == "index" else weird
        node = _get(value, path)
        if not path:
            if op == "replace":
                value = draw(weird)
            continue
        parent = _get(value, path[:-1])
        if op == "replace":
            parent[key] = draw(fill)
        elif op == "delete":
            del parent[key]
        elif op == "add" and isinstance(node, dict):
            new = draw(st.sampled_from(["index", "type", "id", "extra", "error", "usage"]))
            node[new] = draw(safe_index if new == "index" else weird)
        elif op == "wrap":
            parent[key] = [node]
        elif op == "stringify" and isinstance(node, int | float) and key != "index":
            parent[key] = str(node)
        elif op == "empty":
            parent[key] = type(node)() if isinstance(node, dict | list | str) else None
    return value


# -- SSE bodies ------------------------------------------------------------------------------

LINE_ENDS = [b"\n", b"\r", b"\r\n"]


@st.composite
def line_end(draw: st.DrawFn) -> bytes:
    return draw(st.sampled_from(LINE_ENDS))


@st.composite
def sse_body(draw: st.DrawFn, events: list[NativeEvent], *, noise: bool = True) -> bytes:
    """``events`` as an SSE body: random framing, and (with ``noise``) comments, ids, retry,
    unknown fields, split data lines, a BOM, extra blank lines, a missing final blank line."""
    uniform = draw(st.booleans())
    nl0 = draw(line_end())

    def nl() -> bytes:
        return nl0 if uniform else draw(line_end())

    out = bytearray()
    if noise and draw(st.integers(0, 9)) == 0:
        out += b"\xef\xbb\xbf"
    for name, data in events:
        if noise and draw(st.integers(0, 5)) == 0:
            out += draw(noise_line()) + nl()
        if name is not None:
            out += b"event: " + name.encode("utf-8", "surrogatepass") + nl()
        text = data if isinstance(data, str) else dumps(data, ascii=draw(st.booleans()))
        payload = text.encode("utf-8", "surrogatepass")
        lines = payload.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
        if noise and len(lines) == 1 and len(payload) > 2 and draw(st.integers(0, 7)) == 0:
            cut = draw(st.integers(1, len(payload) - 1))
            lines = [payload[:cut], payload[cut:]]  # data over two lines
        for line in lines:
            sep = b"data:" if noise and draw(st.integers(0, 9)) == 0 else b"data: "
            out += sep + line + nl()
        out += nl()
        if noise and draw(st.integers(0, 9)) == 0:
            out += nl()
    if noise and out and draw(st.integers(0, 9)) == 0:
        out = out[: -draw(st.integers(1, min(4, len(out))))]  # cut the end short
    return bytes(out)


@st.composite
def noise_line(draw: st.DrawFn) -> bytes:
    return draw(
        st.sampled_from(
            [
                b": ping",
                b":",
                b": \x1b[31m",
                b"id: 7",
                b"id: a\x00b",
                b"id",
                b"retry: 1000",
                b"retry: x",
                b"foo: bar",
                b"event: ping",
                b"event: error",
                b"data",
                b"\xff\xfe",
                b"data: \xe2\x82",
            ]
        )
    )


@st.composite
def sse_tokens(draw: st.DrawFn) -> bytes:
    """Bodies made of SSE-ish tokens: field names, payload pieces and every line ending."""
    tokens = [
        b"data: ",
        b"data:",
        b"data",
        b"event: ",
        b"event: message_start",
        b"id: ",
        b"retry: 5",
        b": c",
        b"\n",
        b"\n\n",
        b"\r",
        b"\r\n",
        b"[DONE]",
        b'{"choices":[{"index":0,"delta":{"content":"x"}}]}',
        b'{"error":{"message":"m"}}',
        b'{"',
        b"}",
        b"\xef\xbb\xbf",
        b"\xe2\x82",
        b"\xac",
        b"\xff",
        "é".encode(),
        "😀".encode(),
    ]
    return b"".join(draw(st.lists(st.sampled_from(tokens), max_size=50)))


# -- chunk streams ---------------------------------------------------------------------------


def chunk(delta: Obj, finish: str | None = None, index: int = 0, **extra: Any) -> Obj:
    return {
        "id": "chatcmpl-fuzz",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-fuzz",
        "choices": [{"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}],
        **extra,
    }


@st.composite
def chunk_events(draw: st.DrawFn) -> list[NativeEvent]:
    """A chat chunk stream (valid in shape), its frames possibly mutated, [DONE] anywhere."""
    n_choices = draw(st.integers(1, 2))
    frames: list[Any] = []
    for i in range(n_choices):
        frames.append(chunk({"role": "assistant", "content": ""}, index=i))
    for _ in range(draw(st.integers(0, 6))):
        i = draw(st.integers(0, n_choices - 1))
        kind = draw(st.sampled_from(["content", "reasoning", "refusal", "call", "args"]))
        if kind == "content":
            frames.append(chunk({"content": draw(_clean_text())}, index=i))
        elif kind == "reasoning":
            frames.append(chunk({"reasoning_content": draw(_clean_text())}, index=i))
        elif kind == "refusal":
            frames.append(chunk({"refusal": draw(_clean_text())}, index=i))
        elif kind == "call":
            k = draw(st.integers(0, 2))
            head = {
                "index": k,
                "id": f"call_{k}",
                "type": "function",
                "function": {"name": draw(st.sampled_from(["f", "get_weather", "\x1b[2J"])),
                             "arguments": ""},
            }  # fmt: skip
            frames.append(chunk({"tool_calls": [head]}, index=i))
        else:
            frag = draw(st.sampled_from(['{"a":', "1", "}", '"x"', "[", "tru", "\\u12", "{}"]))
            tc = {"index": draw(st.integers(0, 2)), "function": {"arguments": frag}}
            frames.append(chunk({"tool_calls": [tc]}, index=i))
    for i in range(n_choices):
        fr = draw(st.sampled_from(["stop", "length", "tool_calls", "end_turn", "\x1b[31m", None]))
        frames.append(chunk({}, fr, index=i))
    if draw(st.booleans()):
        usage = {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7}
        frames.append({**chunk({}), "choices": [], "usage": usage})
    if draw(st.integers(0, 5)) == 0:
        frames.insert(
            draw(st.integers(0, len(frames))),
            {"error": {"message": draw(_clean_text()), "type": "server_error"}},
        )
    events: list[NativeEvent] = [(None, f) for f in frames]
    events.append((None, "[DONE]"))
    for _ in range(draw(st.integers(0, 3))):  # [DONE] at random places
        events.insert(draw(st.integers(0, len(events))), (None, "[DONE]"))
    return mutate_events(draw, events, draw(st.integers(0, 4)))


def mutate_events(draw: st.DrawFn, events: list[NativeEvent], times: int) -> list[NativeEvent]:
    """Change ``times`` events: mutate a data value, shuffle, drop, duplicate, garble text."""
    events = list(events)
    for _ in range(times):
        if not events:
            break
        op = draw(st.sampled_from(["value", "value", "value", "move", "drop", "dup", "text"]))
        i = draw(st.integers(0, len(events) - 1))
        name, data = events[i]
        if op == "value" and not isinstance(data, str):
            events[i] = (name, mutate(draw, data, draw(st.integers(1, 3))))
        elif op == "move":
            ev = events.pop(i)
            events.insert(draw(st.integers(0, len(events))), ev)
        elif op == "drop":
            del events[i]
        elif op == "dup":
            events.insert(i, events[i])
        elif op == "text":
            text = data if isinstance(data, str) else dumps(data)
            cut = draw(st.integers(0, len(text)))
            garbage = draw(st.sampled_from(['"', "}", "{", ",", "\\", "NaN", "\\ud800", "]"]))
            events[i] = (name, text[:cut] + garbage + text[cut:])
    return events


# -- native streams, seeded from the recordings ----------------------------------------------


def _events_of(path: Path) -> list[NativeEvent]:
    with open(path, "rb") as fp:
        reader = RecordingReader(fp, str(path))
        body = b"".join(b for _, b in reader.reads())
    dec = SSEDecoder()
    evs = dec.feed(body) + dec.finish()
    out: list[NativeEvent] = []
    for ev in evs:
        try:
            out.append((ev.event, json.loads(ev.data)))
        except ValueError:
            out.append((ev.event, ev.data))
    return out


def _seeds(dialect: str) -> list[list[NativeEvent]]:
    folders = {"openai": ["openai", "chat"]}.get(dialect, [dialect])
    return [
        _events_of(p) for folder in folders for p in sorted((RECORDINGS / folder).glob("*.jsonl"))
    ]


DIALECTS = ("anthropic", "gemini", "responses", "openai")
SEEDS: dict[str, list[list[NativeEvent]]] = {d: _seeds(d) for d in DIALECTS}

#: Gemini partialArgs paths: simple ones, and odd ones a real stream may not send.
SIMPLE_PATHS = [
    "$.a",
    "$.a.b",
    "$.a[0]",
    "$.a[1].b",
    "$['x y']",
    '$["q\\"q"]',
    "$.b",
    "$.a.b.c.d.e",
]
ODD_PATHS = [
    *SIMPLE_PATHS,
    "$",
    "",
    "a",
    "$.",
    "$..a",
    "$[0]",
    "$.a[",
    "$.a[x]",
    "$.\u00e9",
]


@st.composite
def gemini_partial_call(draw: st.DrawFn, paths: list[str]) -> list[NativeEvent]:
    """A Gemini streamed call: name + willContinue, partialArgs records, the closing part."""
    records = []
    for _ in range(draw(st.integers(0, 5))):
        rec: Obj = {"jsonPath": draw(st.sampled_from(paths))}
        kind = draw(st.sampled_from(["stringValue", "numberValue", "boolValue", "nullValue"]))
        rec[kind] = draw(
            {
                "stringValue": _clean_text(8),
                "numberValue": st.one_of(st.integers(-5, 5), st.floats(allow_nan=False)),
                "boolValue": st.booleans(),
                "nullValue": st.none(),
            }[kind]
        )
        if kind == "stringValue" and draw(st.booleans()):
            rec["willContinue"] = True
        records.append(rec)

    def event(fc: Obj, finish: str | None = None) -> NativeEvent:
        cand: Obj = {"content": {"role": "model", "parts": [{"functionCall": fc}]}, "index": 0}
        if finish:
            cand["finishReason"] = finish
        return (None, {"candidates": [cand], "responseId": "r1", "modelVersion": "gemini-x"})

    out = [event({"name": "f", "willContinue": True})]
    per = draw(st.integers(1, 3))
    for i in range(0, len(records), per):
        out.append(event({"partialArgs": records[i : i + per], "willContinue": True}))
    if draw(st.booleans()):
        out.append(event({}))
    out.append(event({}, "STOP") if draw(st.booleans()) else (None, {"candidates": []}))
    return out


@st.composite
def native_events(draw: st.DrawFn, dialect: str, *, types: bool = True) -> list[NativeEvent]:
    """A native stream of ``dialect``: a recorded one (or, for Gemini, a streamed call),
    with its events moved, dropped, duplicated, garbled, and (``types``) values changed."""
    if dialect == "gemini" and draw(st.integers(0, 2)) == 0:
        events = draw(gemini_partial_call(ODD_PATHS if types else SIMPLE_PATHS))
    else:
        events = list(draw(st.sampled_from(SEEDS[dialect])))
    if dialect == "responses" and draw(st.integers(0, 3)) == 0:
        for i in range(len(events)):  # sequence numbers: gaps, repeats, wrong types
            name, data = events[i]
            if isinstance(data, dict) and "sequence_number" in data:
                data = dict(data)
                data["sequence_number"] = draw(st.one_of(st.integers(-2, 80), safe_index))
                events[i] = (name, data)
    if draw(st.integers(0, 2)) == 0:
        events = _garble_arguments(draw, events)
    times = draw(st.integers(0, 5))
    if types:
        return mutate_events(draw, events, times)
    return _structural(draw, events, times)


ARGUMENT_GARBAGE = ['{"a":', "}", "]", '"', "\\", "\\u12", "nul", "{}{}", ",", "NaN", "\x00", ""]


def _garble_arguments(draw: st.DrawFn, events: list[NativeEvent]) -> list[NativeEvent]:
    """Argument fragments replaced by garbage: Anthropic partial_json, Responses deltas and
    whole arguments, chat function.arguments; every event stays well typed."""
    out: list[NativeEvent] = []
    for name, data in events:
        if isinstance(data, dict):
            keys = {"partial_json", "arguments"}
            if "function_call_arguments" in str(data.get("type")):
                keys.add("delta")
            data = _copy(data)
            for path in list(_paths(data)):
                if not path or path[-1] not in keys:
                    continue
                parent = _get(data, path[:-1])
                if isinstance(parent[path[-1]], str) and draw(st.booleans()):
                    parent[path[-1]] = draw(st.sampled_from(ARGUMENT_GARBAGE))
        out.append((name, data))
    return out


def _structural(draw: st.DrawFn, events: list[NativeEvent], times: int) -> list[NativeEvent]:
    """Only moves, drops and duplicates: every event stays one the provider could send."""
    events = list(events)
    for _ in range(times):
        if not events:
            break
        i = draw(st.integers(0, len(events) - 1))
        op = draw(st.sampled_from(["move", "drop", "dup"]))
        if op == "move":
            ev = events.pop(i)
            events.insert(draw(st.integers(0, len(events))), ev)
        elif op == "drop":
            del events[i]
        else:
            events.insert(i, events[i])
    return events


# -- splits ----------------------------------------------------------------------------------


def pieces(body: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(set(cuts)), len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds)]


def crlf_cuts(body: bytes) -> list[int]:
    """Every place between a CR and the LF after it."""
    return [i for i in range(1, len(body)) if body[i - 1] == 0x0D and body[i] == 0x0A]


def utf8_cuts(body: bytes) -> list[int]:
    """Every place inside a multi-byte UTF-8 sequence (before a continuation byte)."""
    return [i for i in range(1, len(body)) if 0x80 <= body[i] < 0xC0]


@st.composite
def splits(draw: st.DrawFn, body: bytes) -> list[bytes]:
    """``body`` cut somewhere: at random places, between CR and LF, inside UTF-8."""
    n = len(body)
    cuts = draw(st.lists(st.integers(0, n), max_size=12))
    special = crlf_cuts(body) + utf8_cuts(body)
    if special:
        cuts += draw(st.lists(st.sampled_from(special), max_size=8))
    return pieces(body, cuts)


def split_variants(body: bytes) -> Iterator[tuple[str, list[bytes]]]:
    """The deterministic splits every body is tried with."""
    yield "whole", [body]
    yield "bytes", [body[i : i + 1] for i in range(len(body))]
    cr = crlf_cuts(body)
    if cr:
        yield "crlf", pieces(body, cr)
    u8 = utf8_cuts(body)
    if u8:
        yield "utf8", pieces(body, u8)
    yield "with-empty", [b"", *pieces(body, [len(body) // 3, len(body) // 3]), b""]


def all_splits(body: bytes, drawn: list[bytes]) -> list[tuple[str, list[bytes]]]:
    return [*split_variants(body), ("drawn", drawn)]


def run_each(
    body: bytes, drawn: list[bytes], fn: Callable[[list[bytes]], Any]
) -> list[tuple[str, Any]]:
    return [(name, fn(p)) for name, p in all_splits(body, drawn)]
