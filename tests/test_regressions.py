"""Regressions found in review: each once broke the engine, the memo or a message."""

from __future__ import annotations

import json
from typing import Any

from sseconform import Settings, check_bytes, check_chunks

HEAD = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}


def _frame(delta: dict[str, Any] | None = None, fr: str | None = None, **extra: Any) -> str:
    choice: dict[str, Any] = {"index": 0, "delta": delta if delta is not None else {}}
    if fr is not None:
        choice["finish_reason"] = fr
    return "data: " + json.dumps({**HEAD, "choices": [choice], **extra}) + "\n\n"


def _tc(index: Any, args: str, **head: Any) -> dict[str, Any]:
    fn: dict[str, Any] = {"arguments": args}
    if "name" in head:
        fn["name"] = head.pop("name")
    return {"index": index, **head, "function": fn}


def _codes(body: str, **settings: Any) -> list[str]:
    on = check_bytes(body.encode(), Settings(**settings))
    off = check_bytes(body.encode(), Settings(memo=False, **settings))
    assert on.findings == off.findings
    return sorted(d.code for d in on.findings)


def test_fast_arguments_follow_a_moved_call() -> None:
    """Once a call moved index (I004), fragments must go where the general path sends them."""
    body = (
        _frame({"role": "assistant", "tool_calls": [_tc(0, "", id="a", name="f", type="function")]})
        + _frame({"tool_calls": [_tc(1, "", id="b", name="g", type="function")]})
        + _frame({"tool_calls": [_tc(1, '{"x":', id="a")]})
        + _frame({"tool_calls": [_tc(2, '{"y":', id="b")]})
        + _frame({"tool_calls": [_tc(1, "1}")]})
        + _frame({}, "tool_calls")
        + "data: [DONE]\n\n"
    )
    result = check_bytes(body.encode())
    f009 = [d for d in result.findings if d.code == "F009"]
    assert len(f009) == 1 and f009[0].message.startswith("call 1 ")


def test_unhashable_finish_reason_is_a_finding_not_a_crash() -> None:
    for value in ("[]", "{}"):
        body = 'data: {"choices":[{"index":0,"delta":{},"finish_reason":' + value + "}]}\n\n"
        assert "F006" in {d.code for d in check_bytes(body.encode()).findings}


def test_memo_with_a_tiny_argument_limit() -> None:
    body = _frame(
        {"role": "assistant", "tool_calls": [_tc(0, "", id="a", name="f", type="function")]}
    ) + _frame({"tool_calls": [_tc(0, "{}")]})
    assert _codes(body, max_arguments=1) == ["E003"]


def test_probe_text_in_a_frame_cannot_fool_the_memo() -> None:
    probe = "sseconform-template-probe-0"

    def frag(decoy: str) -> str:
        return (
            'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
            '"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":'
            f'{{"\\u0061rguments":"{probe}"}}}}]}},"logprobs":{{"arguments":"{decoy}"}},'
            '"finish_reason":null}]}\n\n'
        )

    body = (
        _frame({"role": "assistant", "content": ""})
        + _frame({"tool_calls": [_tc(0, '{"a":"', id="a", name="f", type="function")]})
        + frag(probe)
        + frag('\\"}')
        + _frame({}, "tool_calls")
        + "data: [DONE]\n\n"
    )
    assert "F009" in _codes(body)


def test_role_and_empty_content_on_the_finish_chunk_is_residue_not_a_restart() -> None:
    body = (
        _frame({"role": "assistant", "content": ""})
        + _frame({"content": "hi"})
        + _frame({"role": "assistant", "content": ""}, "stop")
        + "data: [DONE]\n\n"
    )
    assert _codes(body) == ["F003"]


def test_integral_float_indexes_count_as_integers() -> None:
    """JSON Schema (and every client) reads 0.0 as the integer 0: the checks still run."""
    body = (
        _frame(
            {"role": "assistant", "tool_calls": [_tc(0.0, "{", id="a", name="f", type="function")]}
        )
        + _frame({}, "tool_calls")
        + "data: [DONE]\n\n"
    )
    assert _codes(body) == ["F009", "T008"]
    choice = 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
    body = (
        choice
        + '"choices":[{"index":0.0,"delta":{"role":"assistant","content":"x"}}]}\n\n'
        + choice
        + '"choices":[{"index":0.0,"delta":{},"finish_reason":"stop"}]}\n\n'
        + "data: [DONE]\n\n"
    )
    assert _codes(body) == []


def test_bad_arguments_are_reported_even_when_an_error_frame_follows() -> None:
    body = (
        _frame(
            {"role": "assistant", "tool_calls": [_tc(0, "{", id="a", name="f", type="function")]}
        )
        + _frame({}, "tool_calls")
        + 'data: {"error":{"message":"x"}}\n\n'
        + "data: [DONE]\n\n"
    )
    assert "F009" in _codes(body)


def test_id_changes_are_told_against_the_first_chunk() -> None:
    body = "".join(
        "data: " + json.dumps({**HEAD, "id": i, "choices": [{"index": 0, "delta": {}}]}) + "\n\n"
        for i in ("c1", "b", "c1")
    )
    messages = [d.message for d in check_bytes(body.encode()).findings if d.code == "G002"]
    assert messages == [
        "id 'b'; the first chunk had 'c1'",
        "id 'c1'; the first chunk had 'c1', then 'b'",
    ]


def test_not_an_event_stream_message_does_not_depend_on_the_split() -> None:
    body = b' {"a": 1}'
    whole = check_bytes(body).findings
    assert any("looks like JSON" in d.message for d in whole)
    for i in range(1, len(body)):
        assert check_chunks([body[:i], body[i:]]).findings == whole
