"""The stream model: what a chunk stream adds up to, the way a careful client reads it."""

from __future__ import annotations

import json
from typing import Any

import pytest

from sseconform.wires.reassemble import Reassembler, reassemble
from tests.conftest import CASES

ID = "chatcmpl-model"


def chunk(*choices: dict[str, Any], usage: dict[str, Any] | None = None) -> str:
    obj: dict[str, Any] = {
        "id": ID,
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": "gpt-test",
        "choices": list(choices),
    }
    if usage is not None:
        obj["usage"] = usage
    return json.dumps(obj)


def delta(finish: str | None = None, index: int = 0, **fields: Any) -> dict[str, Any]:
    return {"index": index, "delta": fields, "finish_reason": finish}


def call(
    index: int, *, id: str | None = None, name: str | None = None, args: str | None = None
) -> Any:
    tc: dict[str, Any] = {"index": index}
    fn: dict[str, Any] = {}
    if id is not None:
        tc["id"] = id
        tc["type"] = "function"
    if name is not None:
        fn["name"] = name
    if args is not None:
        fn["arguments"] = args
    if fn:
        tc["function"] = fn
    return tc


def run(*events: str) -> Reassembler:
    r = Reassembler()
    for data in events:
        r.feed_event(data)
    return r


def body(*events: str) -> bytes:
    return "".join(f"data: {e}\n\n" for e in events).encode()


ROLE = chunk(delta(role="assistant", content=""))
FINISH_STOP = chunk(delta("stop"))
FINISH_TOOLS = chunk(delta("tool_calls"))


def test_text() -> None:
    r = run(
        ROLE,
        chunk(delta(content="Hello")),
        chunk(delta(content=" world")),
        chunk(delta(content="!")),
        FINISH_STOP,
        "[DONE]",
    )
    c = r.choices[0]
    assert (c.role, c.text, c.finish_reason) == ("assistant", "Hello world!", "stop")
    assert (c.reasoning, c.refusal, c.tool_calls) == ("", "", {})
    assert (r.id, r.model, r.done, r.error, r.usage) == (ID, "gpt-test", True, None, None)


def test_text_parts_are_joined_once() -> None:
    r = run(ROLE, *(chunk(delta(content=str(i % 10))) for i in range(1000)))
    c = r.choices[0]
    assert c.text == "0123456789" * 100
    assert c._text._parts == ["0123456789" * 100]  # collapsed: a second read does not join again
    r.feed_event(chunk(delta(content="!")))
    assert c.text.endswith("9!")


def test_keep_bounds_the_text_but_counts_all() -> None:
    r = Reassembler(keep=100)
    for i in range(10_000):
        r.feed_event(chunk(delta(content=str(i % 10))))
    text, _, _ = r.choices[0].parts
    assert text.total == 10_000 and text.cut
    assert 100 <= len(text.value) <= 200
    assert text.value.endswith("56789") and ("0123456789" * 30).endswith(text.value)


def test_parse_arguments_tracks_each_call_as_partial_json() -> None:
    r = Reassembler(parse_arguments=True)
    r.feed_event(chunk(delta(tool_calls=[call(0, id="c1", name="f", args='{"a": [1')])))
    tc = r.choices[0].tool_calls[0]
    assert tc.json is not None and tc.json.status == "streaming"
    assert tc.json.pending == "]}" and tc.fragments == 1
    r.feed_event(chunk(delta(tool_calls=[call(0, args=", 2]}")])))
    assert tc.json.status == "complete" and tc.json.value() == {"a": [1, 2]}
    r.feed_event(chunk(delta(tool_calls=[call(1, id="c2", name="g", args='{"b"')])))
    r.feed_event(chunk(delta("tool_calls")))
    assert r.choices[0].tool_calls[1].json.status == "truncated"  # type: ignore[union-attr]


def test_reasoning_content_and_reasoning() -> None:
    r = run(
        ROLE,
        chunk(delta(reasoning_content="The user")),
        chunk(delta(reasoning=" greets")),
        # both keys with the same text (some gateways): counted once, not doubled
        chunk(delta(reasoning_content=" me.", reasoning=" me.")),
        chunk(delta(content="Hi")),
        FINISH_STOP,
    )
    assert r.choices[0].reasoning == "The user greets me."
    assert r.choices[0].text == "Hi"


def test_refusal() -> None:
    r = run(
        chunk(delta(role="assistant", content=None, refusal="")),
        chunk(delta(refusal="I'm sorry,")),
        chunk(delta(refusal=" no.")),
        FINISH_STOP,
    )
    assert (r.choices[0].refusal, r.choices[0].text) == ("I'm sorry, no.", "")


def test_tool_call_in_fragments() -> None:
    r = run(
        chunk(
            delta(
                role="assistant", content=None, tool_calls=[call(0, id="call_a", name="f", args="")]
            )
        ),
        *(chunk(delta(tool_calls=[call(0, args=a)])) for a in ['{"', "city", '":"', "Paris", '"}']),
        FINISH_TOOLS,
    )
    tc = r.choices[0].tool_calls[0]
    assert tc.to_dict() == {
        "index": 0,
        "id": "call_a",
        "type": "function",
        "name": "f",
        "arguments": '{"city":"Paris"}',
    }
    assert r.choices[0].finish_reason == "tool_calls"


def test_parallel_calls() -> None:
    r = run(
        ROLE,
        chunk(delta(tool_calls=[call(0, id="call_a", name="get_weather", args="")])),
        chunk(delta(tool_calls=[call(0, args='{"city":"Paris"}')])),
        chunk(delta(tool_calls=[call(1, id="call_b", name="get_time", args="")])),
        chunk(delta(tool_calls=[call(1, args='{"tz":')])),
        chunk(delta(tool_calls=[call(1, args='"CET"}')])),
        FINISH_TOOLS,
    )
    calls = r.choices[0].tool_calls
    assert [(t.index, t.id, t.name, t.arguments) for t in calls.values()] == [
        (0, "call_a", "get_weather", '{"city":"Paris"}'),
        (1, "call_b", "get_time", '{"tz":"CET"}'),
    ]


def test_interleaved_calls_and_text() -> None:
    r = run(
        ROLE,
        chunk(delta(tool_calls=[call(0, id="call_a", name="f", args="")])),
        chunk(delta(tool_calls=[call(1, id="call_b", name="g", args="")])),
        chunk(delta(tool_calls=[call(0, args='{"a":')])),
        chunk(delta(content="Checking")),
        chunk(delta(tool_calls=[call(1, args='{"b":')])),
        # two fragments of different calls in one delta
        chunk(delta(tool_calls=[call(0, args="1}"), call(1, args="2}")])),
        chunk(delta(content=".")),
        FINISH_TOOLS,
    )
    c = r.choices[0]
    assert c.text == "Checking."
    assert {i: (t.id, t.name, t.arguments) for i, t in c.tool_calls.items()} == {
        0: ("call_a", "f", '{"a":1}'),
        1: ("call_b", "g", '{"b":2}'),
    }


def test_repeated_id_and_name_are_not_concatenated() -> None:
    r = run(
        ROLE,
        chunk(delta(tool_calls=[call(0, id="call_a", name="f", args='{"x"')])),
        chunk(delta(tool_calls=[call(0, id="call_a", name="f", args=":1}")])),
        FINISH_TOOLS,
    )
    tc = r.choices[0].tool_calls[0]
    assert (tc.id, tc.name, tc.arguments) == ("call_a", "f", '{"x":1}')


def test_id_and_name_arriving_late_fill_in() -> None:
    r = run(
        ROLE,
        chunk(delta(tool_calls=[call(0, args="{")])),
        chunk(delta(tool_calls=[call(0, id="call_late", name="f", args="}")])),
        FINISH_TOOLS,
    )
    tc = r.choices[0].tool_calls[0]
    assert (tc.id, tc.type, tc.name, tc.arguments) == ("call_late", "function", "f", "{}")


def test_calls_without_index_route_by_id() -> None:
    whole = {"id": "call_m", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    other = {"id": "call_n", "type": "function", "function": {"name": "g", "arguments": "{}"}}
    r = run(ROLE, chunk(delta(tool_calls=[whole])), chunk(delta(tool_calls=[other])), FINISH_TOOLS)
    calls = r.choices[0].tool_calls
    assert [(i, t.id, t.arguments) for i, t in calls.items()] == [
        (0, "call_m", "{}"),
        (1, "call_n", "{}"),
    ]
    r.feed_event(chunk(delta(tool_calls=[{"id": "call_m", "function": {"arguments": " "}}])))
    assert calls[0].arguments == "{} "


def test_unusable_index_is_ignored() -> None:
    r = run(ROLE, chunk(delta(tool_calls=[{"index": -1, "id": "x"}, {"index": "0", "id": "y"}])))
    assert r.choices[0].tool_calls == {}


def test_usage() -> None:
    usage = {"prompt_tokens": 9, "completion_tokens": 3, "total_tokens": 12}
    r = run(ROLE, chunk(delta(content="Hi")), FINISH_STOP, chunk(usage=usage), "[DONE]")
    assert r.usage == usage
    assert r.choices[0].text == "Hi"


def test_error_frame_ends_the_stream() -> None:
    err = {"message": "Upstream closed", "type": "upstream_error", "code": "502"}
    r = run(
        ROLE,
        chunk(delta(content="Hello")),
        json.dumps({"error": err}),
        chunk(delta(content=" late")),  # a client has raised by now
        json.dumps({"error": {"message": "second"}}),
        "[DONE]",
    )
    assert r.error == err
    assert r.choices[0].text == "Hello"
    assert r.choices[0].finish_reason is None
    assert r.done


def test_error_as_string() -> None:
    r = run(ROLE, json.dumps({"error": "overloaded"}))
    assert r.error == {"message": "overloaded"}


def test_n2_choices() -> None:
    r = run(
        chunk(delta(role="assistant", content="")),
        chunk(delta(index=1, role="assistant", content="")),
        chunk(delta(content="Hi"), delta(index=1, content="Hello")),
        chunk(delta(index=1, content=" you")),
        chunk(delta(content=" there")),
        chunk(delta("stop")),
        chunk(delta("length", index=1)),
    )
    assert {i: (c.text, c.finish_reason) for i, c in r.choices.items()} == {
        0: ("Hi there", "stop"),
        1: ("Hello you", "length"),
    }


def test_nothing_after_done_and_junk_ignored() -> None:
    r = run(
        ROLE,
        "not json",
        "[1, 2]",
        '{"choices": "x"}',
        chunk({"index": "0", "delta": {"content": "bad index"}}),
        chunk(delta(content="ok")),
        "[DONE]",
        chunk(delta(content=" after")),
    )
    assert r.choices[0].text == "ok"
    assert r.done


@pytest.mark.parametrize("size", [1, 3, 64, 1 << 20])
def test_feed_bytes_any_split(size: int) -> None:
    raw = body(ROLE, chunk(delta(content="héllo ✓")), chunk(delta(content=" \u2028x")), FINISH_STOP)
    raw = raw.replace(b"\n", b"\r\n") + b"data: [DONE]\r\n\r\n"
    r = Reassembler()
    for i in range(0, len(raw), size):
        r.feed(raw[i : i + size])
    r.finish()
    assert r.choices[0].text == "héllo ✓ \u2028x"
    assert r.done


def test_unterminated_last_event_is_dropped() -> None:
    r = reassemble(
        body(ROLE, chunk(delta(content="a"))) + b"data: " + chunk(delta(content="b")).encode()
    )
    assert r.choices[0].text == "a"


def test_pass_case_tool_calls() -> None:
    r = reassemble(
        (CASES / "pass" / "parallel-tool-calls-after-text-with-usage" / "stream.sse").read_bytes()
    )
    c = r.choices[0]
    assert c.text == "Two lookups."
    assert [t.arguments for t in c.tool_calls.values()] == ['{"city":"Paris"}', '{"tz":"CET"}']
    assert r.usage is not None and r.usage["total_tokens"] == 51
