"""The byte lane (``sse/lane.py``, ``sse/template.py``) changes nothing, in either consumer.

The same generated streams go through ``check`` with the lane on and off
(``Settings(memo=False)`` turns off the templates and the lane) and through ``translate``'s
fast lane and its slow path (every event through the decoder, the translator and the
encoder): the very same findings, places and counts, the very same bytes. Streams of every
dialect the lane reads (chat chunks, Anthropic, Responses and Gemini, CRLF and LF), mostly
plain deltas, with what looks like one and is not (an invalid or
escaped literal, a line before the event, ``data:`` without its space, two data lines, an
extra blank line, CRLF), block and item changes, pings and sequence gaps; split into reads at
random points.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sseconform import Settings, check_chunks
from sseconform.api import FileResult
from sseconform.rules.grammars import checker_for
from sseconform.translate import Translator, translate_body
from sseconform.translate import anthropic as anthropic_mod
from sseconform.translate import gemini as gemini_mod
from sseconform.translate import openai as openai_mod
from sseconform.translate import responses as responses_mod

#: What stands in a delta's JSON where its literal goes (written in after the dump).
MARK = "\x00lane-literal\x00"
MARK_BYTES = json.dumps(MARK).encode()

TEXTS = st.text(st.characters(codec="utf-8"), max_size=6) | st.sampled_from(
    ['"', "\\", "/", "\n", "\x01", "\x7f", "\u2028", "\u200d", "\u00e9", "\U0001f600", ""]
)

#: Literals no dump of a text writes: each the lane must leave to the slow path, or take as
#: it would (the last two: escapes it writes out decoded, or as they are).
ODD_LITERALS = [
    b'"caf\xc3"',  # a cut UTF-8 sequence
    b'"a\x01b"',  # a raw control character
    b'"\\ud800"',  # a lone surrogate escape: not JSON to orjson
    b'"a"b"',  # a quote too many
    b'"\\x"',  # no such escape
    b'"' + b"y" * 400 + b'"',  # over the small max_line
    b'"\\/\\u00e9"',
    b'"\\ud83d\\ude00\\n"',
]

#: How an event is written: mostly plain; else a look-alike.
WRAPS = ["plain"] * 14 + ["id", "comment", "nospace", "blank", "twolines", "crlf"]


@dataclass(frozen=True)
class Item:
    """One step of a stream: a delta (its literal, how it is written, the step of its
    sequence number), a ping, or a change of block or item."""

    op: str
    literal: bytes = b'""'
    wrap: str = "plain"
    step: int = 1
    pad: str | None = None


@st.composite
def literals(draw: st.DrawFn) -> bytes:
    """A text's literal: raw UTF-8 as most APIs write it, ``\\u`` escapes (which the lane
    writes out decoded), ``\\/`` (the same), or one no dump writes."""
    kind = draw(st.sampled_from(["raw"] * 5 + ["ascii", "ascii", "slash", "odd", "odd"]))
    if kind == "odd":
        return draw(st.sampled_from(ODD_LITERALS))
    text = json.dumps(draw(TEXTS), ensure_ascii=kind == "ascii")
    return (text.replace("/", "\\/") if kind == "slash" else text).encode()


DELTAS = st.builds(
    Item,
    st.just("delta"),
    literals(),
    st.sampled_from(WRAPS),
    st.sampled_from([1] * 10 + [0, 2]),
    st.none() | st.sampled_from(["aBc", "x", "p4d"]),
)
ITEMS = st.lists(
    st.one_of(DELTAS, DELTAS, DELTAS, DELTAS, st.sampled_from([Item("ping"), Item("switch")])),
    max_size=40,
)


def _wrap(event: bytes, item: Item) -> bytes:
    """A delta event (ending in its blank line) written as ``item`` says."""
    event = event.replace(MARK_BYTES, item.literal)
    w = item.wrap
    if w == "id":
        return b"id: 7\n" + event
    if w == "comment":
        return b": keep-alive\n" + event
    if w == "nospace":
        return event.replace(b"data: ", b"data:", 1)
    if w == "blank":
        return event + b"\n"
    if w == "twolines":  # a second data line: the data is joined with a line feed
        return event.replace(b"data: ", b"data: \ndata: ", 1)
    if w == "crlf":  # the check lane stops for good; translate's reads on in LF
        return event.replace(b"\n", b"\r\n")
    return event


def _event(name: str | None, obj: dict[str, Any]) -> bytes:
    head = b"" if name is None else f"event: {name}\n".encode()
    return head + b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"


def _compact(name: str | None, obj: dict[str, Any]) -> bytes:
    head = b"" if name is None else f"event: {name}\n".encode()
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return head + b"data: " + text.encode() + b"\n\n"


# -- a stream per dialect ---------------------------------------------------------------------


def anthropic(items: list[Item], end: bool = True) -> bytes:
    msg: dict[str, Any] = {
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [],
        "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": 3, "output_tokens": 1},
    }  # fmt: skip
    out = [_compact("message_start", {"type": "message_start", "message": msg})]
    index, tool = 0, False

    def start() -> None:
        block = (
            {"type": "tool_use", "id": f"toolu_{index}", "name": "f", "input": {}}
            if tool
            else {"type": "text", "text": ""}
        )
        out.append(
            _compact(
                "content_block_start",
                {"type": "content_block_start", "index": index, "content_block": block},
            )
        )

    def stop() -> None:
        out.append(_compact("content_block_stop", {"type": "content_block_stop", "index": index}))

    start()
    for it in items:
        if it.op == "ping":
            out.append(_compact("ping", {"type": "ping"}))
        elif it.op == "switch":
            stop()
            index, tool = index + 1, not tool
            start()
        else:
            kind, key = ("input_json_delta", "partial_json") if tool else ("text_delta", "text")
            delta = {"type": kind, key: MARK}
            obj = {"type": "content_block_delta", "index": index, "delta": delta}
            out.append(_wrap(_compact("content_block_delta", obj), it))
    if not end:  # cut short: what is said of the end sits at the last event, maybe the lane's
        return b"".join(out)
    stop()
    last = {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 9}}  # fmt: skip
    out.append(_compact("message_delta", last))
    out.append(_compact("message_stop", {"type": "message_stop"}))
    return b"".join(out)


def responses(items: list[Item], end: bool = True) -> bytes:
    seq = 0
    out: list[bytes] = []

    def ev(kind: str, fields: dict[str, Any], step: int = 1, pad: str | None = None) -> bytes:
        nonlocal seq
        obj = {"type": kind, "sequence_number": seq, **fields}
        if pad is not None:
            obj["obfuscation"] = pad
        seq += step
        return _compact(kind, obj)

    resp = {"id": "resp_1", "object": "response", "created_at": 1, "model": "m",
            "status": "in_progress", "output": []}  # fmt: skip
    out.append(ev("response.created", {"response": resp}))
    index, call = 0, False
    text: list[str] = []

    def where() -> dict[str, Any]:
        return {"item_id": f"{'fc' if call else 'msg'}_{index:060d}", "output_index": index}

    def open_item() -> None:
        if call:
            item = {"id": where()["item_id"], "type": "function_call", "status": "in_progress",
                    "call_id": f"call_{index}", "name": "f", "arguments": ""}  # fmt: skip
            out.append(ev("response.output_item.added", {"output_index": index, "item": item}))
            return
        item = {"id": where()["item_id"], "type": "message", "role": "assistant",
                "status": "in_progress", "content": []}  # fmt: skip
        out.append(ev("response.output_item.added", {"output_index": index, "item": item}))
        part = {"type": "output_text", "text": "", "annotations": []}
        out.append(ev("response.content_part.added", {**where(), "content_index": 0, "part": part}))

    def close_item() -> None:
        whole = "".join(text)
        if call:
            out.append(ev("response.function_call_arguments.done", {**where(), "arguments": whole}))
            return
        out.append(ev("response.output_text.done", {**where(), "content_index": 0, "text": whole}))

    open_item()
    for it in items:
        if it.op == "ping":  # Responses has none: a keep-alive comment
            out.append(b": ping\n\n")
        elif it.op == "switch":
            close_item()
            index, call, text = index + 1, not call, []
            open_item()
        else:
            kind = (
                "response.function_call_arguments.delta" if call else "response.output_text.delta"
            )
            fields = {**where(), "delta": MARK} if call else {**where(), "content_index": 0,
                                                               "delta": MARK}  # fmt: skip
            out.append(_wrap(ev(kind, fields, it.step, it.pad), it))
            with contextlib.suppress(ValueError):  # the `.done` repeats what the deltas said
                text.append(orjson.loads(it.literal))
    if not end:
        return b"".join(out)
    close_item()
    done = {**resp, "status": "completed"}
    out.append(ev("response.completed", {"response": done}))
    return b"".join(out)


CHAT_HEAD = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def chat(items: list[Item], end: bool = True) -> bytes:
    def chunk(delta: dict[str, Any], finish: str | None = None, pad: str | None = None) -> bytes:
        obj: dict[str, Any] = {
            **CHAT_HEAD,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
        }
        if pad is not None:
            obj["obfuscation"] = pad
        return _compact(None, obj)

    out = [chunk({"role": "assistant", "content": ""})]
    call = -1
    for it in items:
        if it.op == "ping":
            out.append(b": keep-alive\n\n")
        elif it.op == "switch":
            call += 1
            fn = {"name": "f", "arguments": ""}
            tc = {"index": call, "id": f"call_{call}", "type": "function", "function": fn}
            out.append(chunk({"tool_calls": [tc]}))
        elif call < 0:
            out.append(_wrap(chunk({"content": MARK}, pad=it.pad), it))
        else:
            tc = {"index": call, "function": {"arguments": MARK}}
            out.append(_wrap(chunk({"tool_calls": [tc]}, pad=it.pad), it))
    if not end:
        return b"".join(out)
    out.append(chunk({}, "tool_calls" if call >= 0 else "stop"))
    out.append(b"data: [DONE]\n\n")
    return b"".join(out)


def gemini(items: list[Item], end: bool = True, *, crlf: bool = True) -> bytes:
    out: list[bytes] = []
    n = 0
    for it in items:
        n += 1
        usage = {"promptTokenCount": 9, "candidatesTokenCount": n, "totalTokenCount": n + 9}
        if it.op == "ping":
            out.append(b": ping\n\n")
            continue
        part = {"functionCall": {"name": "f", "args": {"n": n}}} if it.op == "switch" else {
            "text": MARK}  # fmt: skip
        obj = {"candidates": [{"content": {"parts": [part], "role": "model"}, "index": 0}],
               "usageMetadata": usage, "modelVersion": "g"}  # fmt: skip
        out.append(_wrap(_event(None, obj), it))
    last = {"candidates": [{"content": {"parts": [{"text": "."}], "role": "model"},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": n + 1,
                              "totalTokenCount": n + 10}}  # fmt: skip
    if end:
        out.append(_event(None, last))
    body = b"".join(out)
    return body.replace(b"\n", b"\r\n") if crlf else body


# -- the property -----------------------------------------------------------------------------


def _cuts(body: bytes, points: list[int]) -> list[bytes]:
    marks = sorted({p % (len(body) + 1) for p in points})
    out, last = [], 0
    for p in [*marks, len(body)]:
        out.append(body[last:p])
        last = p
    return [c for c in out if c]


def _key(r: FileResult) -> tuple[Any, ...]:
    found = [(d.code, d.frame, d.line, d.offset, d.message, d.pointer) for d in r.findings]
    return found, r.suppressed, r.bytes, r.frames, r.error


def _same(body: bytes, cuts: list[int], dialect: str, grammar: str | None) -> None:
    """Check with the lane and without, translate fast and slow: the same, however cut."""
    parts = _cuts(body, cuts)
    if grammar is not None:
        for base in (Settings(), Settings(max_line=300, max_event=1 << 20)):
            on = check_chunks(parts, base, grammar=grammar)
            off = check_chunks([body], replace(base, memo=False), grammar=grammar)
            assert _key(on) == _key(off), grammar
    for to in ("chat", "anthropic", "responses", "gemini"):
        if to == grammar:
            continue  # a source in the target's grammar is passed through
        slow = b"".join(translate_body([body], dialect, to=to, fast=False))
        fast = b"".join(translate_body(parts, dialect, to=to))
        assert fast == slow, (dialect, to)


SOURCES: dict[str, tuple[Callable[[list[Item], bool], bytes], str | None]] = {
    "anthropic": (anthropic, "anthropic"),
    "responses": (responses, "responses"),
    "openai": (chat, "chat"),
    "gemini": (lambda items, end: gemini(items, end, crlf=True), "gemini"),
    "gemini-lf": (lambda items, end: gemini(items, end, crlf=False), "gemini"),
}
CUTS = st.lists(st.integers(min_value=0, max_value=1 << 20), max_size=12)


@pytest.mark.parametrize("source", list(SOURCES))
@settings(
    max_examples=100, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow]
)
@given(items=ITEMS, end=st.booleans(), cuts=CUTS)
def test_the_lane_changes_nothing(
    source: str, items: list[Item], end: bool, cuts: list[int]
) -> None:
    make, grammar = SOURCES[source]
    _same(make(items, end), cuts, source.split("-")[0], grammar)


# -- and it is not idle -------------------------------------------------------------------------

PLAIN = [Item("delta", json.dumps(t, ensure_ascii=False).encode()) for t in ["Hi", " é", "!"] * 20]
TRANSLATORS: dict[str, type[Translator]] = {
    "anthropic": anthropic_mod.AnthropicTranslator,
    "responses": responses_mod.ResponsesTranslator,
    "openai": openai_mod.OpenAITranslator,
    "gemini": gemini_mod.GeminiTranslator,
    "gemini-lf": gemini_mod.GeminiTranslator,
}


@pytest.mark.parametrize("source", list(SOURCES))
def test_the_generated_deltas_go_by_the_lane(source: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The property is not idle: the plain deltas of every generated stream, cut into reads,
    are taken by both consumers' lanes, not decoded."""
    make, grammar = SOURCES[source]
    body = make([*PLAIN, Item("switch"), *PLAIN], True)
    cuts = list(range(97, len(body), 97))
    if grammar is not None:
        c = checker_for(grammar, Settings())
        for piece in _cuts(body, cuts):
            c.feed(piece)
        c.finish()
        assert c.lane_events > 0.8 * 2 * len(PLAIN), (c.lane_events, c.frames)
    cls = TRANSLATORS[source]
    fed = {"n": 0}
    real = cls.feed

    def counting(self: Any, ev: Any) -> Any:
        fed["n"] += 1
        return real(self, ev)

    monkeypatch.setattr(cls, "feed", counting)
    for to in ("chat", "anthropic", "responses"):
        if to != grammar:
            fed["n"] = 0
            b"".join(translate_body(_cuts(body, cuts), source.split("-")[0], to=to))
            assert fed["n"] < 0.2 * 2 * len(PLAIN), (to, fed)
    _same(body, cuts, source.split("-")[0], grammar)
