"""The template memo is an optimisation only: with it on or off, the very same diagnostics.

Checked on every case, every real stream, and generated streams whose content and argument
fragments hold every kind of JSON string escape, resends and look-alike keys.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sseconform import Settings, check_bytes, check_chunks
from sseconform.jsonstr import JSON_STRING as _JSON_STRING
from tests.conftest import CASES, REAL_STREAMS, case_settings


def _both(body: bytes) -> None:
    on = check_bytes(body, Settings(memo=True))
    off = check_bytes(body, Settings(memo=False))
    assert on.findings == off.findings
    assert on.suppressed == off.suppressed


@pytest.mark.parametrize(
    "case",
    sorted(p for p in CASES.glob("*/*") if (p / "stream.sse").is_file()),
    ids=lambda p: f"{p.parent.name}/{p.name}",
)
def test_memo_changes_nothing_on_cases(case: Path) -> None:
    _both((case / "stream.sse").read_bytes())


GRAMMAR_CASES = [
    (grammar, p)
    for grammar in ("anthropic", "responses", "open-responses")
    for p in sorted((CASES / grammar).glob("*/*"))
    if (p / "stream.sse").is_file()
]


@pytest.mark.parametrize(
    ("grammar", "case"), GRAMMAR_CASES, ids=lambda x: x if isinstance(x, str) else x.name
)
def test_the_delta_templates_change_nothing(grammar: str, case: Path) -> None:
    """Every split too: a template made in one read is used in the next."""
    body = (case / "stream.sse").read_bytes()
    on_settings = case_settings(case)
    off_settings = replace(on_settings, memo=False)
    on = check_bytes(body, on_settings, grammar=grammar)
    off = check_bytes(body, off_settings, grammar=grammar)
    assert on.findings == off.findings
    one = check_chunks((body[i : i + 1] for i in range(len(body))), on_settings, grammar=grammar)
    assert one.findings == off.findings


def test_the_delta_templates_on_real_streams() -> None:
    if not (REAL_STREAMS / "MANIFEST.tsv").is_file():
        pytest.skip("../shared/real-streams is not present")
    for path in sorted(REAL_STREAMS.rglob("*.sse")):
        body = path.read_bytes()
        if b'"response.' in body:
            grammars: tuple[str, ...] = ("responses", "open-responses")
        elif b"content_block_delta" in body:
            grammars = ("anthropic",)
        else:
            continue
        for grammar in grammars:
            on = check_bytes(body, Settings(memo=True), grammar=grammar)
            off = check_bytes(body, Settings(memo=False), grammar=grammar)
            assert on.findings == off.findings, (path.name, grammar)
            assert on.suppressed == off.suppressed, (path.name, grammar)


def _responses_delta(seq: int, delta: str, pad: str | None = None, item: str = "msg_m") -> str:
    obj: dict[str, object] = {
        "type": "response.output_text.delta",
        "item_id": item,
        "output_index": 0,
        "content_index": 0,
        "delta": delta,
        "sequence_number": seq,
    }
    if pad is not None:
        obj["obfuscation"] = pad
    return f"event: response.output_text.delta\ndata: {json.dumps(obj)}\n\n"


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(max_size=6),
            st.one_of(st.none(), st.text(max_size=4)),
            st.sampled_from([1, 1, 1, 2, 0, -1]),  # mostly the next number; gaps and repeats
            st.sampled_from(["msg_m", "msg_m", "msg_m", "msg_x"]),  # another item now and then
        ),
        min_size=1,
        max_size=12,
    )
)
def test_the_responses_delta_template_on_generated_deltas(
    deltas: list[tuple[str, str | None, int, str]],
) -> None:
    """Escapes of every kind, padding, sequence gaps and repeats, a delta for another item:
    the template takes only what the full path would pass, and the text built is the same
    (the terminal output compares it)."""
    head = (
        'event: response.created\ndata: {"type":"response.created","sequence_number":0,'
        '"response":{"id":"resp_m"}}\n\n'
        'event: response.output_item.added\ndata: {"type":"response.output_item.added",'
        '"sequence_number":1,"output_index":0,"item":{"id":"msg_m","type":"message",'
        '"content":[]}}\n\n'
        'event: response.content_part.added\ndata: {"type":"response.content_part.added",'
        '"sequence_number":2,"item_id":"msg_m","output_index":0,"content_index":0,'
        '"part":{"type":"output_text","text":""}}\n\n'
    )
    seq, text, frames = 2, "", []
    for delta, pad, step, item in deltas:
        seq += step
        frames.append(_responses_delta(seq, delta, pad, item))
        text += delta
    done = json.dumps(
        {
            "type": "response.output_text.done",
            "item_id": "msg_m",
            "output_index": 0,
            "content_index": 0,
            "text": text,
            "sequence_number": seq + 1,
        }
    )
    body = (head + "".join(frames) + f"event: response.output_text.done\ndata: {done}\n\n").encode()
    on = check_bytes(body, Settings(memo=True), grammar="responses")
    off = check_bytes(body, Settings(memo=False), grammar="responses")
    assert on.findings == off.findings


def test_memo_changes_nothing_on_the_corpus() -> None:
    if not (REAL_STREAMS / "MANIFEST.tsv").is_file():
        pytest.skip("../shared/real-streams is not present")
    for path in sorted(REAL_STREAMS.rglob("*.sse")):
        _both(path.read_bytes())


def _frame(
    delta: dict[str, object],
    fr: str | None = None,
    raw_content: str | None = None,
    pad: str | None = None,
) -> str:
    chunk: dict[str, object] = {
        "id": "chatcmpl-memo",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": fr}],
    }
    if pad is not None:  # OpenAI's per-chunk padding, a second changing literal
        chunk["obfuscation"] = pad
    text = json.dumps(chunk, separators=(",", ":"))
    if raw_content is not None:  # hand-written literal, to reach escapes json.dumps never makes
        text = text.replace('"content":"@"', f'"content":{raw_content}')
    return f"data: {text}\n\n"


LITERALS = st.sampled_from(
    [
        '"plain"',
        '""',
        '"\\u00e9\\n\\t\\"q\\"\\\\"',
        '"\\ud83d\\ude00"',
        '"\\ud800"',  # lone surrogate: invalid JSON, must not ride the template
        '"\\x41"',  # invalid escape
        '"tab\there"',  # raw control character: invalid JSON
        '"a","content":"b"',  # two tokens: not one literal
        '"\\/"',
        '"\u2028"',
        '"content\\":"',
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(LITERALS, min_size=1, max_size=12), st.integers(min_value=1, max_value=64))
def test_memo_equivalence_on_hand_made_literals(literals: list[str], piece: int) -> None:
    body = _frame({"role": "assistant", "content": ""}) + _frame({"content": "start"})
    for lit in literals:
        body += _frame({"content": "@"}, raw_content=lit)
    body += _frame({}, "stop") + "data: [DONE]\n\n"
    raw = body.encode()
    on = check_chunks([raw[i : i + piece] for i in range(0, len(raw), piece)])
    off = check_bytes(raw, Settings(memo=False))
    assert on.findings == off.findings


@settings(max_examples=150, deadline=None)
@given(st.lists(st.text(max_size=6), min_size=1, max_size=30), st.booleans())
def test_memo_equivalence_on_argument_fragments(fragments: list[str], resend: bool) -> None:
    head = {"index": 0, "id": "call_memo", "type": "function"}
    body = _frame({"role": "assistant", "content": None})
    body += _frame({"tool_calls": [{**head, "function": {"name": "f", "arguments": ""}}]})
    sent = ""
    for frag in fragments:
        body += _frame({"tool_calls": [{"index": 0, "function": {"arguments": frag}}]})
        sent += frag
    if resend and sent:
        body += _frame({"tool_calls": [{"index": 0, "function": {"arguments": sent}}]})
    body += _frame({}, "tool_calls") + "data: [DONE]\n\n"
    _both(body.encode())


@given(st.text(max_size=40))
def test_literal_matcher_agrees_with_orjson(text: str) -> None:
    literal = json.dumps(text)
    assert _JSON_STRING.fullmatch(literal)
    assert orjson.loads(literal) == text


@given(st.text(alphabet=st.sampled_from('ab"\\/u0dD8e9\x01\n'), max_size=14))
def test_literal_matcher_never_accepts_what_orjson_rejects(inner: str) -> None:
    literal = f'"{inner}"'
    if _JSON_STRING.fullmatch(literal):
        assert isinstance(orjson.loads(literal), str)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.tuples(LITERALS, st.sampled_from(["x", "", "ab\\", 'q"', "\u00e9"])), max_size=12)
)
def test_memo_equivalence_with_obfuscation(frames: list[tuple[str, str]]) -> None:
    body = _frame({"role": "assistant", "content": ""}, pad="p0")
    body += _frame({"content": "start"}, pad="p1")
    for lit, pad in frames:
        body += _frame({"content": "@"}, raw_content=lit, pad=pad)
    body += _frame({}, "stop", pad="end") + "data: [DONE]\n\n"
    _both(body.encode())


def test_memo_rides_obfuscated_streams() -> None:
    """The memo must actually serve OpenAI-style streams: most frames skip the parse."""
    from sseconform import StreamChecker

    body = _frame({"role": "assistant", "content": ""}, pad="a")
    body += "".join(_frame({"content": f"w{i}"}, pad="xyz"[: i % 3]) for i in range(200))
    body += _frame({}, "stop", pad="b") + "data: [DONE]\n\n"
    checker = StreamChecker()
    checker.feed(body.encode())
    assert checker.finish() == []
    assert checker._tmpl is None  # dropped by the finish chunk, as it must be


@given(st.text(max_size=30))
def test_plain_literal_test_is_sound(text: str) -> None:
    """Whatever is_plain_literal accepts is one JSON string whose value is its inside."""
    from sseconform.jsonstr import is_plain_literal

    for literal in (f'"{text}"', json.dumps(text, ensure_ascii=False), text):
        if is_plain_literal(literal):
            assert _JSON_STRING.fullmatch(literal)
            assert orjson.loads(literal) == literal[1:-1]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(max_size=6),
            st.sampled_from(["input_json_delta", "input_json_delta", "text_delta", "odd_delta"]),
            st.sampled_from([0, 0, 0, 1]),  # now and then a block that is not open
        ),
        min_size=1,
        max_size=12,
    )
)
def test_the_anthropic_delta_template_on_generated_deltas(
    deltas: list[tuple[str, str, int]],
) -> None:
    """A tool block's input in fragments of every escape, a text delta in the tool block, an
    unknown delta type, a delta for a block never started: the same findings either way, and
    the same input parsed at the stop (A013 when it is not JSON)."""
    events: list[dict[str, Any]] = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_m",
                "type": "message",
                "role": "assistant",
                "content": [],
                "model": "claude-test",
                "stop_reason": None,
                "usage": {"input_tokens": 1, "output_tokens": 1},
            },
        },
        {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "tool_use", "id": "toolu_m", "name": "f", "input": {}},
        },
    ]
    for text, kind, index in deltas:
        key = "partial_json" if kind == "input_json_delta" else "text"
        events.append(
            {"type": "content_block_delta", "index": index, "delta": {"type": kind, key: text}}
        )
    events += [
        {"type": "content_block_stop", "index": 0},
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use"},
            "usage": {"output_tokens": 3},
        },
        {"type": "message_stop"},
    ]
    body = "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()
    on = check_bytes(body, Settings(memo=True), grammar="anthropic")
    off = check_bytes(body, Settings(memo=False), grammar="anthropic")
    assert on.findings == off.findings


def test_a_key_spelled_another_way_is_not_the_template_s_value() -> None:
    """`"x\"delta":` holds the text `delta":` too; a template must cut the real key's value,
    or memo on and off would disagree (found in review)."""
    head = (
        'event: response.created\ndata: {"type":"response.created","sequence_number":0,'
        '"response":{"id":"r"}}\n\n'
        'event: response.output_item.added\ndata: {"type":"response.output_item.added",'
        '"sequence_number":1,"output_index":0,"item":{"id":"m","type":"message",'
        '"content":[]}}\n\n'
        'event: response.content_part.added\ndata: {"type":"response.content_part.added",'
        '"sequence_number":2,"item_id":"m","output_index":0,"content_index":0,'
        '"part":{"type":"output_text","text":""}}\n\n'
    )
    frames = [
        'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",'
        f'"sequence_number":{n},"item_id":"m","output_index":0,"content_index":0,'
        f'"delta" :"abc","x\\"delta":"q{n}"}}\n\n'
        for n in range(3, 8)
    ]
    done = (
        'event: response.output_text.done\ndata: {"type":"response.output_text.done",'
        '"sequence_number":8,"item_id":"m","output_index":0,"content_index":0,'
        '"text":"abcabcabcabcabc"}\n\n'
    )
    body = (head + "".join(frames) + done).encode()
    on = check_bytes(body, Settings(memo=True), grammar="responses")
    off = check_bytes(body, Settings(memo=False), grammar="responses")
    assert on.findings == off.findings
    assert "S030" not in on.codes


def test_hostile_deltas_after_a_template_never_crash() -> None:
    base = (
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
        '"delta":{"type":"text_delta","text":"%s"}%s}\n\n'
    )
    start = (
        'event: message_start\ndata: {"type":"message_start","message":{"id":"m",'
        '"type":"message","role":"assistant","content":[],"model":"c","usage":'
        '{"input_tokens":1,"output_tokens":1}}}\n\n'
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,'
        '"content_block":{"type":"text","text":""}}\n\n'
    )
    deep = ',"x":' + "[" * 990 + "]" * 990
    body = (start + base % ("a", "") + base % ("b", "") + base % ("c", deep)).encode()
    on = check_bytes(body, Settings(memo=True), grammar="anthropic")
    assert on.findings == check_bytes(body, Settings(memo=False), grammar="anthropic").findings
    huge = (
        'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",'
        '"item_id":"m","output_index":0,"content_index":0,"delta":"x","sequence_number":'
        + "9" * 5000
        + "}\n\n"
    )
    check_bytes(huge.encode() * 3, Settings(memo=True), grammar="responses")
