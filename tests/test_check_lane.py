"""``check``'s lane (rules/base.py, rules/lane.py) takes delta events straight from the bytes.

In all three grammars it reads: chat's content deltas and argument fragments, Anthropic's
block deltas, Responses' text deltas.

It must change nothing: every finding, place and count is what the decoder-and-parse path
gives (``Settings(memo=False)`` turns both the templates and the lane off). Checked on
generated Anthropic and Responses streams made of plain deltas and of every way an event can
look like one and not be one (a bad UTF-8 byte or a raw control character in its string, an
escape, ``data:`` without its space, two data lines, an ``id:`` line, a comment, CRLF, an
extra blank line, a sequence gap), cut into reads at random places; and on the benchmark
streams, where it must take nearly every event.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sseconform import Settings, check_chunks
from sseconform.rules.anthropic.checker import AnthropicChecker
from sseconform.rules.chat.checker import StreamChecker
from sseconform.rules.responses.checker import ResponsesChecker

BENCH = Path(__file__).resolve().parent / "benchmarks"

TEXTS = st.text(max_size=8) | st.sampled_from(['"', "\\", "\n", "\x01", "\u2028", "\ud83d\ude00"])


def _event(name: str, obj: dict[str, object]) -> bytes:
    return f"event: {name}\ndata: {json.dumps(obj, separators=(',', ':'))}\n\n".encode()


def _anthropic_delta(index: int, text: str, key: str = "text") -> bytes:
    kind = {"text": "text_delta", "thinking": "thinking_delta", "partial_json": "input_json_delta"}
    delta = {"type": kind[key], key: text}
    obj = {"type": "content_block_delta", "index": index, "delta": delta}
    return _event("content_block_delta", obj)


RAW_DELTA = (
    b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    b'"delta":{"type":"text_delta","text":%s}}\n\n'
)

#: Events that look like a text delta of block 0 and are not one the lane may take.
ODD_ANTHROPIC = [
    RAW_DELTA % b'"caf\xc3"',  # a cut UTF-8 sequence
    RAW_DELTA % b'"a\x01b"',  # a raw control character
    RAW_DELTA % b'"say \\"hi\\""',  # escapes: the lane decodes them
    RAW_DELTA % b'"\\ud800"',  # a lone surrogate escape: not JSON to orjson
    RAW_DELTA % b'"a"b"',  # a quote too many
    RAW_DELTA.replace(b"data: ", b"data:") % b'"x"',
    RAW_DELTA.replace(b'data: {"type"', b'id: 7\ndata: {"type"') % b'"x"',
    RAW_DELTA.replace(b'"index":0,', b'"index":0,\ndata: ') % b'"x"',
    RAW_DELTA.replace(b"\n\n", b"\n\n\n") % b'"x"',
    RAW_DELTA.replace(b"\n", b"\r\n") % b'"x"',
    b": keep-alive\n\n",
    b'event: ping\ndata: {"type":"ping"}\n\n',
    RAW_DELTA.replace(b'"index":0', b'"index":1') % b'"x"',
    RAW_DELTA.replace(b"event: content_block_delta\n", b"") % b'"x"',
    RAW_DELTA % (b'"' + b"y" * 300 + b'"'),  # over the small max_line below
]


def _cuts(body: bytes, points: list[int]) -> list[bytes]:
    marks = sorted({p % (len(body) + 1) for p in points})
    out, last = [], 0
    for p in [*marks, len(body)]:
        out.append(body[last:p])
        last = p
    return [c for c in out if c]


def _same(body: bytes, cuts: list[int], grammar: str, base: Settings) -> None:
    on = check_chunks(_cuts(body, cuts), base, grammar=grammar)
    off_settings = replace(base, memo=False)
    off = check_chunks([body], off_settings, grammar=grammar)
    assert on.findings == off.findings
    assert on.suppressed == off.suppressed
    assert on.frames == off.frames


ANTHROPIC_HEAD = _event(
    "message_start",
    {
        "type": "message_start",
        "message": {
            "id": "msg_l",
            "type": "message",
            "role": "assistant",
            "model": "m",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    },
) + _event(
    "content_block_start",
    {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
)

STOP_0 = _event("content_block_stop", {"type": "content_block_stop", "index": 0})
MESSAGE_END = _event(
    "message_delta",
    {
        "type": "message_delta",
        "delta": {"stop_reason": "end_turn", "stop_sequence": None},
        "usage": {"output_tokens": 5},
    },
) + _event("message_stop", {"type": "message_stop"})
ANTHROPIC_TAIL = STOP_0 + MESSAGE_END


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.one_of(
            TEXTS.map(lambda t: _anthropic_delta(0, t)),
            st.sampled_from(ODD_ANTHROPIC),
        ),
        max_size=30,
    ),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
    st.booleans(),
)
def test_anthropic_lane_changes_nothing(events: list[bytes], cuts: list[int], end: bool) -> None:
    """Deltas, look-alikes and their mix, cut anywhere; with the end of the message or
    without (then the stream-end finding is placed at the last event, which the lane took)."""
    body = ANTHROPIC_HEAD + b"".join(events) + (ANTHROPIC_TAIL if end else b"")
    _same(body, cuts, "anthropic", Settings(max_line=400, max_event=1 << 20))


#: A block of each kind: its start's content_block and its deltas' key.
BLOCKS = {
    "text": ({"type": "text", "text": ""}, "text"),
    "thinking": ({"type": "thinking", "thinking": "", "signature": ""}, "thinking"),
    "tool_use": ({"type": "tool_use", "id": "toolu_l", "name": "f", "input": {}}, "partial_json"),
}
PING = _event("ping", {"type": "ping"})


def _blocks(spec: list[tuple[str, int, list[tuple[int | None, str]]]]) -> bytes:
    """Blocks one after another, each ``(kind, index, deltas)``; a delta ``(None, _)`` is a
    ping, ``(k, text)`` a delta of the block's kind naming block ``index + k`` (0: its own;
    else a closed or never opened one)."""
    out = [ANTHROPIC_HEAD, STOP_0]
    for kind, index, deltas in spec:
        block, key = BLOCKS[kind]
        start = {"type": "content_block_start", "index": index, "content_block": block}
        out.append(_event("content_block_start", start))
        for k, text in deltas:
            out.append(PING if k is None else _anthropic_delta(index + k, text, key))
        out.append(_event("content_block_stop", {"type": "content_block_stop", "index": index}))
    out.append(MESSAGE_END)
    return b"".join(out)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(sorted(BLOCKS)),
            st.integers(min_value=1, max_value=4),
            st.lists(st.tuples(st.sampled_from([0, 0, 0, 0, 1, -1, None]), TEXTS), max_size=12),
        ),
        max_size=6,
    ),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
)
def test_anthropic_blocks_share_their_kind_s_template(
    spec: list[tuple[str, int, list[tuple[int | None, str]]]], cuts: list[int]
) -> None:
    """One template serves every block of its kind (its index filled in at the block's
    start, found again after a ping): deltas naming another block (closed, or never opened),
    indexes used twice and pings between deltas are found as the full path finds them."""
    _same(_blocks(spec), cuts, "anthropic", Settings(max_line=400, max_event=1 << 20))


def test_a_later_block_s_deltas_go_through_the_lane() -> None:
    """The second text block's deltas are matched from its first, with no new cut."""
    deltas: list[tuple[int | None, str]] = [(0, w) for w in ("a", "b", "c") * 30]
    body = _blocks([("text", 1, deltas), ("text", 2, deltas), ("text", 3, deltas)])
    c = AnthropicChecker(Settings())
    c.feed(body)
    assert c.finish() == []
    # slow: message_start, four starts and stops, the message end, and one delta: the first
    assert c.frames - c.lane_events == 12
    _same(body, [], "anthropic", Settings())


def test_anthropic_tool_input_through_the_lane() -> None:
    """A tool block's input streamed in pieces the lane takes: the input it checks is whole."""
    start = _event(
        "content_block_start",
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}},
        },
    )
    args = json.dumps({"city": 'Z\u00fcrich "old town"', "days": list(range(30))})
    pieces = [args[i : i + 3] for i in range(0, len(args), 3)]
    good = b"".join(_anthropic_delta(1, p, "partial_json") for p in pieces)
    bad = b"".join(_anthropic_delta(1, p, "partial_json") for p in pieces[:-1])
    stop = _event("content_block_stop", {"type": "content_block_stop", "index": 1})
    for body_mid in (good, bad):
        body = ANTHROPIC_HEAD + STOP_0 + start + body_mid + stop + MESSAGE_END
        for size in (1, 7, 64, 4096, len(body)):
            cuts = list(range(size, len(body), size))
            _same(body, cuts, "anthropic", Settings())
        checker = AnthropicChecker(Settings())
        checker.feed(body)
        codes = [d.code for d in checker.finish()]
        assert checker.lane_events >= len(pieces) - 2
        assert bool(codes) == (body_mid is bad)


#: Item ids as long as OpenAI's: the template's piece after the number holds one, too long to
#: be written into the skeleton (lane.SHORT), so it is compared.
ITEM = "msg_" + "6" * 60
OTHER = "msg_" + "7" * 60


RESPONSES_HEAD = (
    b'event: response.created\ndata: {"type":"response.created","sequence_number":0,'
    b'"response":{"id":"resp_l","object":"response","created_at":1,"model":"m",'
    b'"status":"in_progress","output":[]}}\n\n'
    b'event: response.output_item.added\ndata: {"type":"response.output_item.added",'
    b'"sequence_number":1,"output_index":0,"item":{"id":"%s","type":"message",'
    b'"role":"assistant","status":"in_progress","content":[]}}\n\n'
    b'event: response.content_part.added\ndata: {"type":"response.content_part.added",'
    b'"sequence_number":2,"item_id":"%s","output_index":0,"content_index":0,'
    b'"part":{"type":"output_text","text":"","annotations":[]}}\n\n'
) % (ITEM.encode(), ITEM.encode())


def _responses_delta(seq: int, text: str, pad: str | None, item: str = ITEM) -> bytes:
    obj: dict[str, object] = {
        "type": "response.output_text.delta",
        "sequence_number": seq,
        "item_id": item,
        "output_index": 0,
        "content_index": 0,
        "delta": text,
    }
    if pad is not None:
        obj["obfuscation"] = pad
    return _event("response.output_text.delta", obj)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.tuples(
            TEXTS,
            st.one_of(st.none(), st.sampled_from(["aBc", "", "\\", "x\u00e9"])),
            st.sampled_from([1, 1, 1, 1, 2, 0]),
            # mostly a plain event; a CR turns the lane off for the rest, so it comes seldom
            st.sampled_from([b""] * 12 + [b"\xff", b"\x01", b"\r", b"id: 3\n", b": c\n\n"]),
            st.sampled_from([ITEM, ITEM, ITEM, OTHER]),  # a delta of another item
        ),
        max_size=30,
    ),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
)
@example(
    [("a", None, 1, b"", ITEM), ("b", None, 1, b"", ITEM), ("c", None, 1, b"", OTHER)],
    [],
)
def test_responses_lane_changes_nothing(
    deltas: list[tuple[str, str | None, int, bytes, str]], cuts: list[int]
) -> None:
    """Deltas with padding and sequence numbers (the next one, a gap, a repeat), some with a
    bad byte in their string or a line before them, or for another item (which the long piece
    of the template after the number names), cut anywhere; the `.done` compares the text the
    lane built."""
    seq, text, parts = 2, "", []
    for delta, pad, step, odd, item in deltas:
        seq += step
        ev = _responses_delta(seq, delta, pad, item)
        if odd in (b"\xff", b"\x01"):
            ev = ev.replace(b'"delta":"', b'"delta":"' + odd, 1)
        elif odd:
            ev = odd + ev if odd != b"\r" else ev.replace(b"\n\n", b"\r\n\r\n")
        parts.append(ev)
        text += delta
    done = {
        "type": "response.output_text.done",
        "sequence_number": seq + 1,
        "item_id": ITEM,
        "output_index": 0,
        "content_index": 0,
        "text": text,
    }
    body = RESPONSES_HEAD + b"".join(parts) + _event("response.output_text.done", done)
    _same(body, cuts, "responses", Settings())


@pytest.mark.parametrize(
    ("module", "checker"),
    [("bench_anthropic", AnthropicChecker), ("bench_responses", ResponsesChecker)],
)
def test_the_lane_takes_the_benchmark_deltas(module: str, checker: type) -> None:
    """On the benchmarks' streams (a few rounds), in 64 KiB reads: nearly every event goes
    through the lane, and the findings are the full path's (none)."""
    sys.path.insert(0, str(BENCH))
    try:
        bench = __import__(module)
    finally:
        sys.path.remove(str(BENCH))
    body = bench.stream(400_000)
    c = checker(Settings())
    for piece in bench.pieces(body):
        c.feed(piece)
    assert c.finish() == []
    assert c.lane_events > 0.9 * c.frames
    _same(body, list(range(65536, len(body), 65536)), c.grammar, Settings())


CHAT_HEAD = (
    '{"id":"chatcmpl-l","object":"chat.completion.chunk","created":1,"model":"m",'
    '"choices":[{"index":0,"delta":'
)


def _chunk(delta: str, finish: str | None = None, pad: str | None = None) -> bytes:
    fr = json.dumps(finish)
    tail = "" if pad is None else f',"obfuscation":{json.dumps(pad)}'
    return f'data: {CHAT_HEAD}{delta},"finish_reason":{fr}}}]{tail}}}\n\n'.encode()


def _content(text: str, pad: str | None = None) -> bytes:
    return _chunk(json.dumps({"content": text}), pad=pad)


def _fragment(index: int, args: str) -> bytes:
    return _chunk(json.dumps({"tool_calls": [{"index": index, "function": {"arguments": args}}]}))


RAW_CHUNK = _content("\x00").replace(b'"\\u0000"', b"%s")

#: Chunks that look like a content delta and are not one the lane may take.
ODD_CHAT = [
    RAW_CHUNK % b'"caf\xc3"',
    RAW_CHUNK % b'"a\tb"',
    RAW_CHUNK % b'"\\u00e9\\n"',
    RAW_CHUNK % b'"\\udc00"',
    RAW_CHUNK.replace(b"data: ", b"data:") % b'"x"',
    b"event: message\n" + RAW_CHUNK % b'"x"',
    b"id: 1\n" + RAW_CHUNK % b'"x"',
    RAW_CHUNK.replace(b'"delta":', b'"delta":\ndata: ') % b'"x"',
    b": keep-alive\n\n",
    RAW_CHUNK.replace(b"\n\n", b"\r\n\r\n") % b'"x"',
    RAW_CHUNK.replace(b'"index":0', b'"index":1') % b'"x"',
    RAW_CHUNK.replace(b'"finish_reason":null', b'"finish_reason":"stop"') % b'"x"',
    b"data: [DONE]\n\n",
]


@settings(max_examples=80, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.tuples(TEXTS, st.one_of(st.none(), st.text(max_size=5))).map(
                lambda tp: _content(*tp)
            ),
            st.sampled_from(ODD_CHAT),
        ),
        max_size=30,
    ),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=12),
)
def test_chat_lane_changes_nothing(chunks: list[bytes], cuts: list[int]) -> None:
    """Content deltas (with OpenAI's padding or without), look-alikes, a second choice, a
    finish and `[DONE]` in the middle, cut anywhere."""
    role = _chunk('{"role":"assistant","content":""}')
    end = _chunk("{}", "stop") + b"data: [DONE]\n\n"
    _same(role + b"".join(chunks) + end, cuts, "chat", Settings(max_line=400, max_event=1 << 20))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["{", '"a', '":', " 1", "", "\\u00e9", '"\\"', "}", "ab"]), max_size=25
    ),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=8),
)
@example(["{", '"a":', " 1}", '{"a": 1}'], [])  # the last fragment resends all before it
def test_chat_argument_fragments_through_the_lane(pieces: list[str], cuts: list[int]) -> None:
    """A call's fragments, with empty ones and ones as long as all before them (possible
    resends: the full path decides), escapes, and arguments that do not parse at the end."""
    start = _chunk(
        json.dumps(
            {
                "tool_calls": [
                    {"index": 0, "id": "call_1", "type": "function",
                     "function": {"name": "f", "arguments": ""}}
                ]
            }
        )
    )  # fmt: skip
    frags = b"".join(_fragment(0, p) for p in pieces)
    body = _chunk('{"role":"assistant","content":null}') + start + frags
    body += _chunk("{}", "tool_calls") + b"data: [DONE]\n\n"
    _same(body, cuts, "chat", Settings())


@pytest.mark.parametrize("shape", ["text", "obfuscated", "tools"])
def test_the_lane_takes_the_chat_benchmark_chunks(shape: str) -> None:
    sys.path.insert(0, str(BENCH))
    try:
        bench = __import__("bench_check")
    finally:
        sys.path.remove(str(BENCH))
    if shape == "tools":
        body = bench.tool_stream(100_000)
    else:
        body = bench.text_stream(3000, obfuscation=shape == "obfuscated")
    c = StreamChecker(Settings())
    for piece in bench.pieces(body):
        c.feed(piece)
    assert c.finish() == []
    assert c.lane_events > 0.9 * c.frames
    _same(body, list(range(65536, len(body), 65536)), "chat", Settings())


def test_templates_that_no_delta_uses_are_seldom_made() -> None:
    """Chunks whose every delta also differs elsewhere (log probabilities): each could be a
    template and none would be used. After a few, only one candidate in TEMPLATE_EVERY is
    tried; a template that is used again makes every candidate one. Findings stay the full
    path's."""
    chunks = [_chunk('{"role":"assistant","content":""}')]
    for i in range(600):
        logprobs = b'{"content":[{"token":"w","logprob":-%d.5,"bytes":[119],"top_logprobs":[]}]}'
        chunks.append(
            _content("w").replace(
                b'"finish_reason"', b'"logprobs":%s,"finish_reason"' % (logprobs % i)
            )
        )
    chunks += [_content("x")] * 300  # now a run a template fits
    body = b"".join(chunks) + _chunk("{}", "stop") + b"data: [DONE]\n\n"
    c = StreamChecker(Settings())
    made = 0
    real = c._learn

    def counting(*args: object, **kw: bool) -> None:
        nonlocal made
        before = c._tmpl
        real(*args, **kw)  # type: ignore[arg-type]
        made += c._tmpl is not None and c._tmpl is not before

    c._learn = counting  # type: ignore[method-assign,assignment]
    for i in range(0, len(body), 4096):
        c.feed(body[i : i + 4096])
    assert c.finish() == []
    assert made < 600 // StreamChecker.TEMPLATE_EVERY + StreamChecker.TEMPLATE_WASTE + 5
    assert c.lane_events >= 150  # the run at the end still goes through the lane
    _same(body, [7, 4096, 65536], "chat", Settings())
