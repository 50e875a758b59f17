"""Every fold, builder and history check of every wire takes any JSON without an exception:
an odd value where a string, a number or an object was expected is no crash."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from sseconform.gate.turns import _dumped
from sseconform.wires import ALL, assistant_turn, by_dialect, by_endpoint, fold
from sseconform.wires.base import Issued
from sseconform.wires.state import StateFolder


def _sse(*objs: Any) -> bytes:
    return b"".join(b"data: " + json.dumps(o).encode() + b"\n\n" for o in objs)


def test_a_thinking_block_that_starts_null_is_folded() -> None:
    """``"thinking": null`` at a block's start, then its deltas: the thinking is the
    deltas' (it was None + str: the whole gate run ended with an internal error)."""
    body = _sse(
        {"type": "message_start", "message": {"id": "m", "role": "assistant", "content": []}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "thinking", "thinking": None, "signature": None}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "thinking_delta", "thinking": "Let me"}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "thinking_delta", "thinking": " think."}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "signature_delta", "signature": "sig"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}},
        {"type": "message_stop"},
    )  # fmt: skip
    turn = assistant_turn("messages", body)
    assert turn.parts == [{"type": "thinking", "thinking": "Let me think.", "signature": "sig"}]
    whole = json.loads(fold("anthropic", body).body)
    assert whole["content"][0]["thinking"] == "Let me think."
    folder = StateFolder("anthropic")
    for n, line in enumerate(body.split(b"\n\n")[:-1], 1):
        folder.feed(line[6:].decode(), n, 0)
    assert [t.value for t in folder.finish().tokens] == ["sig"]


def test_numbers_summed_past_64_bits_still_make_a_next_request() -> None:
    """Two chunks carrying the same unknown field at 2**64-1 sum (as openai-python sums
    them) past what orjson writes: the next request is written anyway."""
    big = 2**64 - 1
    body = _sse(
        {"choices": [{"index": 0, "delta": {"role": "assistant", "x_count": big}}]},
        {"choices": [{"index": 0, "delta": {"content": "hi", "x_count": big}}]},
    )
    turn = assistant_turn("chat", body)
    assert turn.parts[0]["x_count"] == 2 * big
    assert json.loads(_dumped({"messages": turn.parts}))["messages"][0]["x_count"] == 2 * big


def test_a_history_with_lists_for_ids_is_refused_not_a_crash() -> None:
    issued = Issued(values={"sig"})
    bodies: dict[str, dict[str, Any]] = {
        "anthropic": {"messages": [
            {"role": "assistant", "content": [
                {"type": "thinking", "thinking": "t", "signature": ["sig"]},
                {"type": "tool_use", "id": ["a"], "name": "f", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": ["a"]}]}]},
        "responses": {"input": [
            {"type": "function_call", "call_id": ["c"]},
            {"type": "function_call_output", "call_id": {"c": 1}},
            {"type": "reasoning", "encrypted_content": ["e"]}]},
        "openai": {"messages": [
            {"role": "assistant", "tool_calls": [{"id": "c1"}]},
            {"role": "tool", "tool_call_id": ["c1"]}]},
        "gemini": {"contents": [{"role": "model", "parts": [
            {"functionCall": {"name": ["f"]}, "thoughtSignature": ["sig"]}]}]},
    }  # fmt: skip
    for dialect, body in bodies.items():
        refusal = by_dialect(dialect).check_history(body, issued)
        assert refusal is not None and refusal.status == 400, dialect


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)
KEYS = ["type", "index", "delta", "content_block", "message", "choices", "candidates",
        "content", "parts", "item", "output_index", "response", "tool_calls", "function",
        "text", "thinking", "signature", "partial_json", "functionCall", "thoughtSignature",
        "finish_reason", "error", "usage", "messages", "input", "contents", "role",
        "tool_call_id", "tool_use_id", "call_id", "encrypted_content", "id", "name"]  # fmt: skip
#: a stream event or a request body: each a dict of wire keys at any depth, any values
EVENT = st.recursive(
    st.dictionaries(st.sampled_from(KEYS), JSON, max_size=4),
    lambda inner: st.dictionaries(st.sampled_from(KEYS), inner | st.lists(inner, max_size=3),
                                  max_size=4),
    max_leaves=8,
)  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(st.lists(EVENT, max_size=6), EVENT)
@example(events=[{"candidates": 1}], request={})  # Gemini's fold iterated the number
@example(events=[{"candidates": [{"index": [0]}]}], request={})  # and keyed by a list
@example(events=[{"type": "message_start", "message": {"usage": 5}},
                 {"type": "message_delta", "usage": {}}], request={})  # fmt: skip
def test_any_json_at_any_key_is_no_crash(events: list[Any], request: Any) -> None:
    body = _sse(*events)
    issued = Issued(values={"x"}, signed_calls={"x"}, response_ids={"x"})
    for wire in ALL:
        fold(wire.dialect, body)
        turn = assistant_turn(wire.endpoint, body)
        _dumped(by_endpoint(wire.endpoint).next_body(request, turn, "r", "full"))
        wire.check_history(request, issued)
        wire.read_request(request, {"anthropic-beta": "a"})
        folder = StateFolder(wire.dialect)
        for n, ev in enumerate(events, 1):
            folder.feed(json.dumps(ev), n, 0)
        folder.finish()
        for ev in events:
            wire.carries_token(ev)
