"""The native view's model: blocks and items as they arrive, bounded, never trusting the wire."""

from __future__ import annotations

import json

from sseconform import providers
from sseconform.inspect.native import MAX_PARTS, NativeParts
from sseconform.sse.decoder import Event


def _ev(obj: object, frame: int = 1) -> Event:
    data = obj if isinstance(obj, str) else json.dumps(obj)
    return Event(data, None, None, None, frame, 1, 0, 1)


def test_anthropic_blocks_open_grow_and_close() -> None:
    parts = NativeParts(providers.ANTHROPIC)
    block = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
    parts.feed(_ev({"type": "content_block_start", "index": 0, "content_block": block}, 2))
    delta = {"type": "input_json_delta", "partial_json": '{"city": "Paris"}'}
    parts.feed(_ev({"type": "content_block_delta", "index": 0, "delta": delta}, 3))
    assert parts.parts[0].state == "open" and parts.parts[0].chars == 17
    parts.feed(_ev({"type": "content_block_stop", "index": 0}, 4))
    parts.feed(_ev({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}, 5))
    parts.feed(_ev({"type": "message_stop"}, 6))
    p = parts.parts[0]
    assert (p.kind, p.label, p.frame, p.state, p.deltas) == (
        "tool_use",
        "get_weather",
        2,
        "closed",
        1,
    )
    assert parts.status == "stop_reason tool_use, message_stop"


def test_parts_are_bounded_and_the_rest_counted() -> None:
    parts = NativeParts(providers.ANTHROPIC)
    for i in range(MAX_PARTS + 36):
        start = {"type": "content_block_start", "index": i, "content_block": {"type": "text"}}
        parts.feed(_ev(start, i + 1))
        delta = {"type": "text_delta", "text": "x"}
        parts.feed(_ev({"type": "content_block_delta", "index": i, "delta": delta}))
    assert len(parts.parts) == MAX_PARTS and parts.more == 36


def test_responses_items_and_their_terminal_status() -> None:
    parts = NativeParts(providers.RESPONSES)
    item = {"id": "msg_1", "type": "message", "status": "in_progress", "content": []}
    parts.feed(_ev({"type": "response.output_item.added", "output_index": 0, "item": item}))
    parts.feed(_ev({"type": "response.output_text.delta", "output_index": 0, "delta": "Hi"}))
    done = {**item, "status": "incomplete"}
    parts.feed(_ev({"type": "response.output_item.done", "output_index": 0, "item": done}))
    terminal = {"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}}
    parts.feed(_ev({"type": "response.incomplete", "response": terminal}))
    p = parts.parts[0]
    assert (p.kind, p.label, p.state, p.chars) == ("message", "msg_1", "incomplete", 2)
    assert parts.status == "incomplete (max_output_tokens)"


def test_what_the_wire_sends_is_never_trusted() -> None:
    parts = NativeParts(providers.ANTHROPIC)
    for bad in ("not json", "[1]", '{"type": 3}', {"type": "content_block_start", "index": "0"}):
        parts.feed(_ev(bad))
    block = {"type": "text\x1b[31m", "name": "\x07bell"}
    parts.feed(_ev({"type": "content_block_start", "index": 0, "content_block": block}))
    p = parts.parts[0]
    assert "\x1b" not in p.kind and "\x07" not in p.label
    parts.feed(_ev({"type": "content_block_delta", "index": 9, "delta": {"text": "x"}}))
    assert list(parts.parts) == [0]
