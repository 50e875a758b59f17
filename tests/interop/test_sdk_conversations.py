"""openai-python and anthropic-python in a two-turn tool loop, written as their users write
it, against the replay upstream, which checks turn 2's history as the provider does.
Measured: what each SDK sends back that the upstream accepts, and, for the mistakes
users make, what the SDK raises when turn 2 is refused (class, status, error type and code,
message) and how many requests reached the upstream (a 400 is not retried). openai-python's
chat completions loop goes through the demo gateway (sseconform/demo/gateway.py), in front of
each provider, with and without a gateway mistake."""

from __future__ import annotations

import contextlib
import functools
import json
import time
from collections.abc import Callable, Iterator
from typing import Any, cast

import anthropic
import openai
import pytest
from anthropic.types import MessageParam, ParsedMessage, ThinkingConfigParam, ToolParam
from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionFunctionToolParam, ChatCompletionMessageParam
from openai.types.responses import (
    FunctionToolParam,
    ResponseIncludable,
    ResponseInputParam,
    ResponseOutputItem,
)
from openai.types.shared import ReasoningEffort
from openai.types.shared_params import Reasoning

from sseconform.demo.gateway import Gateway
from sseconform.replay.history import Returned, issued_of
from sseconform.replay.plan import Loaded, load
from sseconform.replay.routing import FAULT_HEADER
from sseconform.replay.scenario import ReplayRule
from sseconform.replay.server import ReplayServer
from sseconform.sse import SSEDecoder
from tests.conftest import ROOT
from tests.translate.make_recordings import RESPONSES_TOOL

HOST = "127.0.0.1"
RECORDINGS = ROOT / "recordings"

A_LOOP = "agent-loop-anthropic.jsonl"  # thinking (signed), then one tool_use
A_ANSWER = "agent-answer-anthropic.jsonl"  # the final text
R_LOOP = "agent-loop-responses.jsonl"  # reasoning (encrypted_content), then a function_call
R_ANSWER = "agent-answer-responses.jsonl"  # the final text

WEATHER = '{"temperature_c": 18, "sky": "sunny"}'  # what the user's tool returns


@functools.cache
def _rec(name: str) -> Loaded:
    dialect = name.removesuffix(".jsonl").rsplit("-", 1)[1]  # agent-loop-DIALECT.jsonl
    return load(str(RECORDINGS / dialect / name))


def _recorded_text(name: str) -> str:
    """The text a recording streams, read from its events with json (not the SDKs)."""
    out: list[str] = []
    for ev in SSEDecoder().feed(_rec(name).body):
        try:
            obj = json.loads(ev.data)
        except ValueError:
            continue
        delta = obj.get("delta")
        if obj.get("type") == "content_block_delta" and delta.get("type") == "text_delta":
            out.append(delta["text"])
        elif obj.get("type") == "response.output_text.delta":
            out.append(delta)
        for candidate in obj.get("candidates") or []:  # Gemini: the parts that are no thought
            parts = candidate.get("content", {}).get("parts", [])
            out += [p["text"] for p in parts if "text" in p and not p.get("thought")]
    return "".join(out)


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback traffic must never go through a proxy from the environment."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")


def _two_turns(dialect: str, turn1: str, answer: str) -> Iterator[ReplayServer]:
    """A mock as a user sets one up for a two-turn test: turn 1's recording once, then the
    answer for every later request."""
    rules = [ReplayRule(turn1, path=dialect, times=1), ReplayRule(answer, path=dialect)]
    server = ReplayServer(
        [_rec(turn1), _rec(answer)], host=HOST, port=0, speed=0, rules=rules, measure=True
    )
    with server.running():
        yield server


@pytest.fixture
def anthropic_upstream() -> Iterator[ReplayServer]:
    yield from _two_turns("anthropic", A_LOOP, A_ANSWER)


@pytest.fixture
def responses_upstream() -> Iterator[ReplayServer]:
    yield from _two_turns("responses", R_LOOP, R_ANSWER)


def _answered(server: ReplayServer) -> list[tuple[str | None, int, str]]:
    """What the upstream answered each request it routed: (recording, status, ending).
    ``requests_seen`` counts a request before its answer is written, so once the SDK has
    returned or raised it holds every request the SDK sent, retries included; the log entry
    of the last one is written just after its answer, so it is waited for."""
    deadline = time.monotonic() + 5
    while len(server.served) < server.requests_seen:
        assert time.monotonic() < deadline, server.served
        time.sleep(0.005)
    return [(s.recording, s.status, s.ending) for s in server.served]


# -- anthropic-python ----------------------------------------------------------------------

A_MODEL = "claude-sonnet-4-6"  # the recording's 4-5 makes this SDK warn (deprecated)
THINKING: ThinkingConfigParam = {"type": "enabled", "budget_tokens": 2048}
WEATHER_SCHEMA: dict[str, object] = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "unit": {"enum": ["celsius", "fahrenheit"]}},
    "required": ["city"],
}
A_TOOLS: list[ToolParam] = [
    {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "input_schema": WEATHER_SCHEMA,
    }
]
A_USER: MessageParam = {"role": "user", "content": "Weather in Lisbon?"}


@pytest.fixture
def claude(anthropic_upstream: ReplayServer) -> Iterator[anthropic.Anthropic]:
    """The client as its users make it: the SDK's own retry settings (max_retries=2)."""
    with anthropic.Anthropic(base_url=anthropic_upstream.url, api_key="sk-ant-test") as client:
        yield client


def _anthropic_turn1(client: anthropic.Anthropic) -> ParsedMessage[None]:
    with client.messages.stream(
        model=A_MODEL, max_tokens=4096, thinking=THINKING, tools=A_TOOLS, messages=[A_USER]
    ) as stream:
        return stream.get_final_message()


def _tool_use_id(final: ParsedMessage[None]) -> str:
    [call] = [b for b in final.content if b.type == "tool_use"]
    return call.id


def _anthropic_history(content: Any, tool_use_id: str) -> list[MessageParam]:
    """Turn 2's messages as the docs write them: the user's question, the assistant turn,
    then the tool's result."""
    result: MessageParam = {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": tool_use_id, "content": WEATHER}],
    }
    return [A_USER, {"role": "assistant", "content": content}, result]


def test_anthropic_loop_sends_final_content_back_and_gets_the_answer(
    anthropic_upstream: ReplayServer,
    claude: anthropic.Anthropic,
) -> None:
    final = _anthropic_turn1(claude)
    assert final.stop_reason == "tool_use"
    assert [b.type for b in final.content] == ["thinking", "tool_use"]
    thinking = final.content[0]
    assert thinking.type == "thinking" and thinking.signature.encode() in _rec(A_LOOP).body

    messages = _anthropic_history(final.content, _tool_use_id(final))
    with claude.messages.stream(
        model=A_MODEL, max_tokens=4096, thinking=THINKING, tools=A_TOOLS, messages=messages
    ) as stream:
        text = stream.get_final_text()
    assert text == _recorded_text(A_ANSWER) == "It is 18 °C and sunny in Lisbon right now."
    assert _answered(anthropic_upstream) == [
        (A_LOOP, 200, "complete"),
        (A_ANSWER, 200, "complete"),
    ]


def _without_thinking(final: ParsedMessage[None]) -> list[MessageParam]:
    """Keeping only the blocks the app shows or acts on (text, tool_use)."""
    kept = [b for b in final.content if b.type != "thinking"]
    return _anthropic_history(kept, _tool_use_id(final))


def _signature_unpadded(final: ParsedMessage[None]) -> list[MessageParam]:
    """A history store that strips base64 padding (or otherwise rewrites) the signature."""
    thinking, *rest = final.content
    assert thinking.type == "thinking"
    changed = thinking.model_copy(update={"signature": thinking.signature.rstrip("=")})
    return _anthropic_history([changed, *rest], _tool_use_id(final))


def _result_for_message_id(final: ParsedMessage[None]) -> list[MessageParam]:
    """The message's id (msg_...) where the tool_use block's id (toolu_...) belongs."""
    return _anthropic_history(final.content, final.id)


ANTHROPIC_MISTAKES: dict[str, tuple[Callable[[ParsedMessage[None]], list[MessageParam]], str]] = {
    "thinking-dropped": (
        _without_thinking,
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
        "`tool_use`. When `thinking` is enabled, a final `assistant` message must start with "
        "a thinking block.",
    ),
    "signature-changed": (
        _signature_unpadded,
        "messages.1.content.0: Invalid `signature` in `thinking` block",
    ),
    "tool-result-wrong-id": (
        _result_for_message_id,
        "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: "
        "msg_01yoNOT8ve8ieSpbh6pyKnt9. Each `tool_result` block must have a corresponding "
        "`tool_use` block in the previous message.",
    ),
}


@pytest.mark.parametrize("mistake", list(ANTHROPIC_MISTAKES))
def test_anthropic_refused_turn_two_raises_bad_request_at_stream_open(
    anthropic_upstream: ReplayServer, claude: anthropic.Anthropic, mistake: str
) -> None:
    build, message = ANTHROPIC_MISTAKES[mistake]
    messages = build(_anthropic_turn1(claude))
    opened = False
    with (
        pytest.raises(anthropic.BadRequestError) as caught,
        claude.messages.stream(
            model=A_MODEL, max_tokens=4096, thinking=THINKING, tools=A_TOOLS, messages=messages
        ) as stream,
    ):
        opened = True
        stream.get_final_message()
    assert not opened  # raised by entering messages.stream(), before any event
    err = caught.value
    assert err.status_code == 400
    assert err.type == "invalid_request_error"
    assert err.api_message == message
    assert err.error_code is None
    assert err.body == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": message},
    }
    assert message in str(err)
    # turn 1, then turn 2 once: the SDK (max_retries=2) does not retry a 400
    assert anthropic_upstream.requests_seen == 2
    assert _answered(anthropic_upstream) == [
        (A_LOOP, 200, "complete"),
        (A_ANSWER, 400, f"refused: {message}"),
    ]


def test_anthropic_request_count_sees_retries_a_500_on_turn_two_is_sent_three_times(
    anthropic_upstream: ReplayServer, claude: anthropic.Anthropic
) -> None:
    """The count above would show a retry: the same good turn 2, answered 500, is retried
    twice (the SDK's default max_retries) before the SDK raises."""
    final = _anthropic_turn1(claude)
    messages = _anthropic_history(final.content, _tool_use_id(final))
    with (
        pytest.raises(anthropic.InternalServerError) as caught,
        claude.messages.stream(
            model=A_MODEL, max_tokens=4096, thinking=THINKING, tools=A_TOOLS, messages=messages,
            extra_headers={FAULT_HEADER: "status=500"},
        ) as stream,
    ):  # fmt: skip
        stream.get_final_message()
    assert caught.value.status_code == 500
    assert anthropic_upstream.requests_seen == 4
    assert _answered(anthropic_upstream)[1:] == [(A_ANSWER, 500, "error response")] * 3


# -- openai-python, Responses --------------------------------------------------------------

R_MODEL = "gpt-5-mini"
REASONING: Reasoning = {"effort": "medium", "summary": "auto"}
INCLUDE: list[ResponseIncludable] = ["reasoning.encrypted_content"]
R_TOOLS: list[FunctionToolParam] = [cast(FunctionToolParam, RESPONSES_TOOL)]  # the recordings'
R_USER: ResponseInputParam = [{"role": "user", "content": "Weather in Lisbon?"}]
REASONING_ID = "rs_067d8f3ebb824b14c87cc0d658eaa9ce86ecd49035f8b255e4"
CALL_ITEM_ID = "fc_067d8f3ebb824b14c87cc0d658147c4a76f4bfbc0340a7b86e"
CALL_ID = "call_XiwMNZF9uEVWGZcgoNE3CGaE"
NO_CALL = "No tool call found for function call output with call_id"


@pytest.fixture
def gpt(responses_upstream: ReplayServer) -> Iterator[openai.OpenAI]:
    """The client as its users make it: the SDK's own retry settings (max_retries=2)."""
    with openai.OpenAI(base_url=responses_upstream.url + "/v1", api_key="sk-test") as client:
        yield client


def _turn1_items_from_events(client: openai.OpenAI, store: bool) -> list[ResponseOutputItem]:
    """Turn 1 as Codex reads it: ``create(stream=True)``, each ``output_item.done`` kept."""
    items: list[ResponseOutputItem] = []
    events = client.responses.create(
        model=R_MODEL, input=R_USER, stream=True, store=store, include=INCLUDE,
        reasoning=REASONING, tools=R_TOOLS,
    )  # fmt: skip
    for event in events:
        if event.type == "response.output_item.done":
            items.append(event.item)
    return items


def _turn1_final_response(client: openai.OpenAI, store: bool) -> openai.types.responses.Response:
    """Turn 1 as the Agents SDK and the docs read it: the stream's final response."""
    with client.responses.stream(
        model=R_MODEL, input=R_USER, store=store, include=INCLUDE, reasoning=REASONING,
        tools=R_TOOLS,
    ) as stream:  # fmt: skip
        return stream.get_final_response()


def _stateless_input(items: list[ResponseOutputItem], call_id: str) -> ResponseInputParam:
    """Turn 2's input, stateless: the question, turn 1's items as the SDK dumps them, the
    tool's output."""
    dumped: list[Any] = [item.model_dump(exclude_none=True) for item in items]
    return [
        *R_USER,
        *dumped,
        {"type": "function_call_output", "call_id": call_id, "output": WEATHER},
    ]


@pytest.mark.parametrize("reader", ["create-stream-events", "stream-final-response"])
def test_responses_stateless_loop_sends_output_items_back_and_gets_the_answer(
    responses_upstream: ReplayServer, gpt: openai.OpenAI, reader: str
) -> None:
    if reader == "create-stream-events":
        items = _turn1_items_from_events(gpt, store=False)
    else:
        items = _turn1_final_response(gpt, store=False).output
    assert [i.type for i in items] == ["reasoning", "function_call"]
    reasoning, call = items
    assert reasoning.type == "reasoning" and reasoning.encrypted_content is not None
    assert reasoning.encrypted_content.encode() in _rec(R_LOOP).body
    assert call.type == "function_call" and (call.id, call.call_id) == (CALL_ITEM_ID, CALL_ID)

    with gpt.responses.stream(
        model=R_MODEL, input=_stateless_input(items, call.call_id), store=False,
        include=INCLUDE, reasoning=REASONING, tools=R_TOOLS,
    ) as stream:  # fmt: skip
        answer = stream.get_final_response()
    assert answer.output_text == _recorded_text(R_ANSWER)
    assert answer.output_text == "It is 18 °C and sunny in Lisbon right now."
    assert _answered(responses_upstream) == [
        (R_LOOP, 200, "complete"),
        (R_ANSWER, 200, "complete"),
    ]


def test_responses_stored_loop_continues_by_previous_response_id(
    responses_upstream: ReplayServer,
    gpt: openai.OpenAI,
) -> None:
    final = _turn1_final_response(gpt, store=True)
    [call] = [i for i in final.output if i.type == "function_call"]
    with gpt.responses.stream(
        model=R_MODEL, previous_response_id=final.id, store=True, reasoning=REASONING,
        tools=R_TOOLS,
        input=[{"type": "function_call_output", "call_id": call.call_id, "output": WEATHER}],
    ) as stream:  # fmt: skip
        assert stream.get_final_response().output_text == _recorded_text(R_ANSWER)
    assert [a[1] for a in _answered(responses_upstream)] == [200, 200]


def _content_unpadded(items: list[ResponseOutputItem]) -> ResponseInputParam:
    """A history store that strips base64 padding (or otherwise rewrites) encrypted_content."""
    reasoning, *rest = items
    assert reasoning.type == "reasoning" and reasoning.encrypted_content is not None
    unpadded = reasoning.encrypted_content.rstrip("=")
    changed = reasoning.model_copy(update={"encrypted_content": unpadded})
    return _stateless_input([changed, *rest], CALL_ID)


def _output_for_item_id(items: list[ResponseOutputItem]) -> ResponseInputParam:
    """The function_call item's ``id`` (fc_...) where its ``call_id`` (call_...) belongs."""
    return _stateless_input(items, CALL_ITEM_ID)


def _output_without_history(items: list[ResponseOutputItem]) -> ResponseInputParam:
    """Only the tool's output, as if the upstream kept the conversation (store=False)."""
    return [{"type": "function_call_output", "call_id": CALL_ID, "output": WEATHER}]


RESPONSES_MISTAKES: dict[
    str, tuple[Callable[[list[ResponseOutputItem]], ResponseInputParam], dict[str, Any]]
] = {
    "encrypted-content-changed": (
        _content_unpadded,
        {
            "message": f"The encrypted content for item {REASONING_ID} could not be verified.",
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_encrypted_content",
        },
    ),
    "output-for-item-id": (
        _output_for_item_id,
        {
            "message": f"{NO_CALL} {CALL_ITEM_ID}.",
            "type": "invalid_request_error",
            "param": "input",
            "code": "invalid_request_error",
        },
    ),
    "output-without-history": (
        _output_without_history,
        {
            "message": f"{NO_CALL} {CALL_ID}.",
            "type": "invalid_request_error",
            "param": "input",
            "code": "invalid_request_error",
        },
    ),
}


def _assert_openai_refusal(
    err: openai.BadRequestError, error: dict[str, Any], server: ReplayServer
) -> None:
    assert err.status_code == 400
    assert err.body == error  # the SDK keeps the body's "error" object
    assert (err.type, err.code, err.param) == (error["type"], error["code"], error["param"])
    assert err.message == f"Error code: 400 - {error['message']}"
    # turn 1, then turn 2 once: the SDK (max_retries=2) does not retry a 400
    assert server.requests_seen == 2
    assert _answered(server) == [
        (R_LOOP, 200, "complete"),
        (R_ANSWER, 400, f"refused: {error['message']}"),
    ]


@pytest.mark.parametrize("mistake", list(RESPONSES_MISTAKES))
def test_responses_refused_turn_two_raises_bad_request_from_create(
    responses_upstream: ReplayServer, gpt: openai.OpenAI, mistake: str
) -> None:
    build, error = RESPONSES_MISTAKES[mistake]
    turn2 = build(_turn1_items_from_events(gpt, store=False))
    events = None
    with pytest.raises(openai.BadRequestError) as caught:
        events = gpt.responses.create(
            model=R_MODEL, input=turn2, stream=True, store=False, include=INCLUDE,
            reasoning=REASONING, tools=R_TOOLS,
        )  # fmt: skip
    assert events is None  # raised by create(stream=True) itself: no stream to iterate
    _assert_openai_refusal(caught.value, error, responses_upstream)


@pytest.mark.parametrize("mistake", list(RESPONSES_MISTAKES))
def test_responses_refused_turn_two_raises_bad_request_at_stream_open(
    responses_upstream: ReplayServer, gpt: openai.OpenAI, mistake: str
) -> None:
    build, error = RESPONSES_MISTAKES[mistake]
    turn2 = build(_turn1_final_response(gpt, store=False).output)
    opened = False
    with (
        pytest.raises(openai.BadRequestError) as caught,
        gpt.responses.stream(
            model=R_MODEL, input=turn2, store=False, include=INCLUDE, reasoning=REASONING,
            tools=R_TOOLS,
        ) as stream,
    ):  # fmt: skip
        opened = True
        stream.get_final_response()
    assert not opened  # raised by entering responses.stream(), before any event
    _assert_openai_refusal(caught.value, error, responses_upstream)


def test_responses_unknown_previous_response_id_is_refused(
    responses_upstream: ReplayServer,
    gpt: openai.OpenAI,
) -> None:
    """An id this upstream never issued (kept from another session or another server)."""
    _turn1_final_response(gpt, store=True)
    stale = "resp_0123456789abcdef0123456789abcdef0123456789abcdef01"
    message = f"Previous response with id '{stale}' not found."
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.responses.create(
            model=R_MODEL, previous_response_id=stale, store=True, stream=True,
            reasoning=REASONING, tools=R_TOOLS,
            input=[{"type": "function_call_output", "call_id": CALL_ID, "output": WEATHER}],
        )  # fmt: skip
    error = {
        "message": message,
        "type": "invalid_request_error",
        "param": "previous_response_id",
        "code": "previous_response_not_found",
    }
    _assert_openai_refusal(caught.value, error, responses_upstream)


def test_responses_request_count_sees_retries_a_500_on_turn_two_is_sent_three_times(
    responses_upstream: ReplayServer, gpt: openai.OpenAI
) -> None:
    """The count above would show a retry: the same good turn 2, answered 500, is retried
    twice (the SDK's default max_retries) before the SDK raises."""
    items = _turn1_items_from_events(gpt, store=False)
    with pytest.raises(openai.InternalServerError) as caught:
        gpt.responses.create(
            model=R_MODEL, input=_stateless_input(items, CALL_ID), stream=True, store=False,
            include=INCLUDE, reasoning=REASONING, tools=R_TOOLS,
            extra_headers={FAULT_HEADER: "status=500"},
        )  # fmt: skip
    assert caught.value.status_code == 500
    assert responses_upstream.requests_seen == 4
    assert _answered(responses_upstream)[1:] == [(R_ANSWER, 500, "error response")] * 3


# -- openai-python, chat completions through a gateway -------------------------------------
#
# The chat user's loop, through the demo gateway (sseconform/demo/gateway.py), which translates
# each provider's stream into chat chunks and forwards the chat history back in the
# provider's shape: the provider's state (a thinking signature, encrypted reasoning, a
# thought signature) rides in the chunks' ``reasoning_details`` (``reasoning_content``: the
# thinking text), fields the SDK's types do not declare and keeps as pydantic extras.

C_TOOLS: list[ChatCompletionFunctionToolParam] = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather for a city.",
            "parameters": WEATHER_SCHEMA,
        },
    }
]
C_USER: ChatCompletionMessageParam = {"role": "user", "content": "Weather in Lisbon?"}
C_EFFORT: ReasoningEffort = "medium"  # a chat client asking for thinking, as gate's does
CHAT_DIALECTS = ("anthropic", "gemini", "responses")


def _loop_and_answer(dialect: str) -> tuple[str, str]:
    return f"agent-loop-{dialect}.jsonl", f"agent-answer-{dialect}.jsonl"


@contextlib.contextmanager
def _chat_gateway(
    dialect: str, bugs: set[str]
) -> Iterator[tuple[ReplayServer, Gateway, openai.OpenAI]]:
    """The replay upstream (turn 1's recording once, then the answer), the gateway in front
    of it, and the client as its users make it (the SDK's own max_retries=2)."""
    with (
        contextlib.contextmanager(_two_turns)(dialect, *_loop_and_answer(dialect)) as upstream,
        Gateway(upstream.url, bugs).running() as gateway,
        openai.OpenAI(base_url=gateway.url + "/v1", api_key="sk-test") as client,
    ):
        yield upstream, gateway, client


def _chat_from_stream_state(
    client: openai.OpenAI, dialect: str, messages: list[ChatCompletionMessageParam]
) -> dict[str, Any]:
    """``create(stream=True)``, the chunks accumulated by the SDK's own
    ``ChatCompletionStreamState``; the final message as the SDK sends a model back."""
    state = ChatCompletionStreamState(input_tools=C_TOOLS)
    for chunk in client.chat.completions.create(
        model=f"sseconform-{dialect}", messages=messages, tools=C_TOOLS,
        reasoning_effort=C_EFFORT, stream=True,
    ):  # fmt: skip
        state.handle_chunk(chunk)
    return state.get_final_completion().choices[0].message.model_dump(exclude_unset=True)


def _chat_from_stream_helper(
    client: openai.OpenAI, dialect: str, messages: list[ChatCompletionMessageParam]
) -> dict[str, Any]:
    """``chat.completions.stream()``: the final completion's message, dumped."""
    with client.chat.completions.stream(
        model=f"sseconform-{dialect}", messages=messages, tools=C_TOOLS,
        reasoning_effort=C_EFFORT,
    ) as stream:  # fmt: skip
        message = stream.get_final_completion().choices[0].message
    return message.model_dump(exclude_unset=True)


def _chat_from_deltas(
    client: openai.OpenAI, dialect: str, messages: list[ChatCompletionMessageParam]
) -> dict[str, Any]:
    """``create(stream=True)`` accumulated by hand as openai's function-calling guide does:
    the content, and each tool call by its index with its arguments joined; nothing else
    the deltas carry (the thinking and its state are not kept)."""
    content = ""
    calls: dict[int, dict[str, Any]] = {}
    for chunk in client.chat.completions.create(
        model=f"sseconform-{dialect}", messages=messages, tools=C_TOOLS,
        reasoning_effort=C_EFFORT, stream=True,
    ):  # fmt: skip
        for choice in chunk.choices:
            content += choice.delta.content or ""
            for tc in choice.delta.tool_calls or []:
                function = tc.function.model_dump(exclude_none=True) if tc.function else {}
                if tc.index not in calls:
                    calls[tc.index] = {"id": tc.id, "type": "function", "function": function}
                else:
                    calls[tc.index]["function"]["arguments"] += function.get("arguments", "")
    return {"role": "assistant", "content": content, "tool_calls": list(calls.values())}


CHAT_READERS: dict[str, Callable[..., dict[str, Any]]] = {
    "create-stream-state": _chat_from_stream_state,
    "stream-final-message": _chat_from_stream_helper,
    "create-stream-deltas": _chat_from_deltas,
}


def _chat_history(assistant: dict[str, Any]) -> list[ChatCompletionMessageParam]:
    """Turn 2's messages: the question, the assistant message, the tool's result for its
    call."""
    [call] = assistant["tool_calls"]
    result: ChatCompletionMessageParam = {
        "role": "tool", "tool_call_id": call["id"], "content": WEATHER,
    }  # fmt: skip
    return [C_USER, cast(ChatCompletionMessageParam, assistant), result]


def _recorded_call(name: str) -> str:
    """The call a turn-1 recording issues, read with json: Anthropic's ``tool_use`` id,
    Responses' ``call_id``, Gemini's function name (its calls carry no id)."""
    for ev in SSEDecoder().feed(_rec(name).body):
        obj = json.loads(ev.data)
        block, item = obj.get("content_block") or {}, obj.get("item") or {}
        if block.get("type") == "tool_use":
            return str(block["id"])
        if obj.get("type") == "response.output_item.done" and item.get("type") == "function_call":
            return str(item["call_id"])
        for candidate in obj.get("candidates") or []:
            for part in candidate["content"]["parts"]:
                if "functionCall" in part:
                    return str(part["functionCall"]["name"])
    raise AssertionError(f"{name} issues no call")


def _forwarded_pairs(dialect: str, body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(the calls, the results' references to them) of the history the upstream got."""
    if dialect == "anthropic":
        blocks = [b for m in body["messages"] if isinstance(m["content"], list)
                  for b in m["content"]]  # fmt: skip
        return (
            [b["id"] for b in blocks if b["type"] == "tool_use"],
            [b["tool_use_id"] for b in blocks if b["type"] == "tool_result"],
        )
    if dialect == "responses":
        items = body["input"]
        return (
            [i["call_id"] for i in items if i.get("type") == "function_call"],
            [i["call_id"] for i in items if i.get("type") == "function_call_output"],
        )
    parts = [p for c in body["contents"] for p in c["parts"]]
    return (
        [p["functionCall"]["name"] for p in parts if "functionCall" in p],
        [p["functionResponse"]["name"] for p in parts if "functionResponse" in p],
    )


@pytest.mark.parametrize("reader", ["create-stream-state", "stream-final-message"])
@pytest.mark.parametrize("dialect", CHAT_DIALECTS)
def test_chat_loop_through_a_gateway_sends_the_message_back_and_gets_the_answer(
    dialect: str, reader: str
) -> None:
    """The final message, dumped as the SDK dumps a model it sends (``exclude_unset``),
    keeps the state the gateway streamed as extras; the gateway puts it back where the
    provider verifies it, with the tool's result paired with the call the provider
    issued, and the upstream answers turn 2."""
    loop, answer = _loop_and_answer(dialect)
    read = CHAT_READERS[reader]
    with _chat_gateway(dialect, set()) as (upstream, gateway, client):
        assistant = read(client, dialect, [C_USER])
        [call] = assistant["tool_calls"]
        assert call["function"]["name"] == "get_weather"
        issued_call = call["function"]["name"] if dialect == "gemini" else call["id"]
        assert issued_call == _recorded_call(loop)
        assert assistant["reasoning_details"]  # the state, kept as the SDK's extras

        final = read(client, dialect, _chat_history(assistant))
        assert final["content"] == _recorded_text(answer)
        assert final["content"] == "It is 18 °C and sunny in Lisbon right now."
        assert "tool_calls" not in final or not final["tool_calls"]
        assert gateway.requests == 2

    assert _answered(upstream) == [(loop, 200, "complete"), (answer, 200, "complete")]
    turn2 = upstream.served[1]
    issued = issued_of([_rec(loop)]).values
    assert issued and turn2.returned == Returned(frozenset(issued), 1)  # the state, unchanged
    calls, results = _forwarded_pairs(dialect, json.loads(turn2.request))
    assert calls == results == [_recorded_call(loop)]


ANTHROPIC_THINKING_FIRST = (
    "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
    "`tool_use`. When `thinking` is enabled, a final `assistant` message must start with a "
    "thinking block."
)
GEMINI_NO_SIGNATURE = (
    "Function call is missing a thought_signature in functionCall parts. This is required "
    "for tools to work correctly. Additional data, function call `default_api:get_weather` , "
    "position 1."
)
#: (dialect, the gateway's bugs, the user's reader, the provider's error body)
CHAT_REFUSALS: dict[str, tuple[str, set[str], str, dict[str, Any]]] = {
    # the user keeps everything; the gateway forwards the history without its thinking
    "gateway-drops-thinking-history": (
        "anthropic", {"drop-thinking-history"}, "create-stream-state",
        {"type": "error",
         "error": {"type": "invalid_request_error", "message": ANTHROPIC_THINKING_FIRST}},
    ),
    # a faithful gateway; the user keeps only the content and the calls
    "deltas-by-hand-anthropic": (
        "anthropic", set(), "create-stream-deltas",
        {"type": "error",
         "error": {"type": "invalid_request_error", "message": ANTHROPIC_THINKING_FIRST}},
    ),
    "deltas-by-hand-gemini": (
        "gemini", set(), "create-stream-deltas",
        {"error": {"code": 400, "message": GEMINI_NO_SIGNATURE, "status": "INVALID_ARGUMENT"}},
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CHAT_REFUSALS))
def test_chat_refused_turn_two_raises_bad_request_from_create(case: str) -> None:
    """Measured, openai-python 3.57.0: the provider's 400, passed through by the gateway
    as it came (status and JSON body), is raised by ``create(stream=True)`` itself (no
    stream to iterate) as ``openai.BadRequestError``: ``status_code`` 400, ``body`` the
    body's ``error`` object, ``message`` "Error code: 400 - " and the provider's message.
    Anthropic's error gives ``type`` "invalid_request_error", ``code`` and ``param`` None;
    Gemini's gives ``code`` "400" (its ``error.code``, an int in the body, as a string),
    ``type`` and ``param`` None.
    A 400 is not retried (max_retries=2): two requests reach the gateway and the upstream.

    The gateway's ``drop-thinking-history`` (the client sent the thinking back; the
    upstream's request lost it) and a user who accumulates the deltas by hand as the
    function-calling guide does (content and calls: ``reasoning_content`` and
    ``reasoning_details`` are left behind) get the same refusal from Anthropic with
    thinking on: the assistant turn that calls a tool must start with its thinking. Gemini
    refuses the hand-accumulated call too: the call it signed came back without its thought
    signature."""
    dialect, bugs, reader, provider_body = CHAT_REFUSALS[case]
    loop, answer = _loop_and_answer(dialect)
    message = provider_body["error"]["message"]
    with _chat_gateway(dialect, bugs) as (upstream, gateway, client):
        messages = _chat_history(CHAT_READERS[reader](client, dialect, [C_USER]))
        events = None
        with pytest.raises(openai.BadRequestError) as caught:
            events = client.chat.completions.create(
                model=f"sseconform-{dialect}", messages=messages, tools=C_TOOLS,
                reasoning_effort=C_EFFORT, stream=True,
            )  # fmt: skip
        assert events is None  # raised by create(stream=True) itself: no stream to iterate
        assert gateway.requests == 2  # turn 1, then turn 2 once: a 400 is not retried
    err = caught.value
    assert err.status_code == 400
    assert err.response.json() == provider_body  # passed through by the gateway as it came
    assert err.body == provider_body["error"]  # the SDK keeps the body's "error" object
    if dialect == "anthropic":
        assert (err.type, err.code, err.param) == ("invalid_request_error", None, None)
    else:
        assert (err.type, err.code, err.param) == (None, "400", None)
    assert err.message == f"Error code: 400 - {message}"
    assert upstream.requests_seen == 2
    assert _answered(upstream) == [(loop, 200, "complete"), (answer, 400, f"refused: {message}")]
