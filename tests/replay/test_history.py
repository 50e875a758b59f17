"""The replay upstream checks the state a request sends back, as the provider does: what it
issued (the served recordings' signatures, encrypted content, response ids) passes; lost or
changed state is refused with the provider's status, error type and message, which the
provider's own SDK raises as it would in production, and replay logs what was wrong."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import openai
import pytest

from sseconform.providers import GEMINI_CLI_SIGNATURE, GEMINI_SKIP_SIGNATURES
from sseconform.replay.history import check_history, issued_of
from sseconform.replay.plan import Loaded, load
from sseconform.replay.routing import RequestBody
from sseconform.replay.server import ReplayServer
from sseconform.sse import SSEDecoder
from sseconform.wires.base import Issued
from sseconform.wires.state import StateFolder
from tests.conftest import ROOT

HOST = "127.0.0.1"
THINKING = ROOT / "recordings" / "anthropic" / "thinking-anthropic.jsonl"
GEMINI_CALL = ROOT / "recordings" / "gemini" / "tool-call-gemini.jsonl"
RESPONSES = ROOT / "recordings" / "responses" / "tool-call-responses.jsonl"


def _state(rec: Loaded) -> list[str]:
    folder = StateFolder(str(rec.dialect))
    for ev in SSEDecoder().feed(rec.body):
        folder.feed(ev.data, ev.frame, ev.offset)
    return [t.value for t in folder.finish().tokens]


@pytest.fixture(scope="module")
def recs() -> dict[str, Loaded]:
    return {"anthropic": load(str(THINKING)), "gemini": load(str(GEMINI_CALL)),
            "responses": load(str(RESPONSES))}  # fmt: skip


@pytest.fixture(scope="module")
def issued(recs: dict[str, Loaded]) -> Issued:
    return issued_of(recs.values())


def _thought() -> str:
    """The thinking text the bundled recording signs."""
    [(_, text)] = issued_of([load(str(THINKING))]).thinking.items()
    return text


def _turn2_anthropic(
    signature: str, *, thinking_first: bool = True, thought: str | None = None
) -> dict[str, Any]:
    assistant: list[dict[str, Any]] = [
        {
            "type": "thinking",
            "thinking": _thought() if thought is None else thought,
            "signature": signature,
        },
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
    ]
    if not thinking_first:
        assistant = assistant[1:]
    return {
        "model": "claude-test", "max_tokens": 2048, "stream": True,
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "messages": [
            {"role": "user", "content": "Weather in Paris?"},
            {"role": "assistant", "content": assistant},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "sunny"}]},
        ],
    }  # fmt: skip


def _check(dialect: str, body: dict[str, Any], issued: Issued) -> tuple[int, str] | None:
    got = check_history(dialect, RequestBody(json.dumps(body).encode()), issued)
    return None if got is None else (got.status, got.reason)


def test_anthropic_what_was_issued_passes_and_anything_else_is_refused(
    recs: dict[str, Loaded], issued: Issued
) -> None:
    [sig] = _state(recs["anthropic"])
    assert _check("anthropic", _turn2_anthropic(sig), issued) is None
    assert _check("anthropic", _turn2_anthropic(sig[:-2]), issued) == (
        400, "messages.1.content.0: Invalid `signature` in `thinking` block",
    )  # fmt: skip
    assert _check("anthropic", _turn2_anthropic(""), issued) is not None
    # the signature signs the text: the issued signature with other text, or none, is refused
    for text in ("", _thought()[:-1], _thought() + " "):
        assert _check("anthropic", _turn2_anthropic(sig, thought=text), issued) == (
            400, "messages.1.content.0: Invalid `signature` in `thinking` block",
        ), text  # fmt: skip
    refused = _check("anthropic", _turn2_anthropic(sig, thinking_first=False), issued)
    assert refused is not None and refused[1].startswith(
        "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
        "`tool_use`"
    )
    unpaired = _turn2_anthropic(sig)
    unpaired["messages"][2]["content"][0]["tool_use_id"] = "toolu_other"
    refused = _check("anthropic", unpaired, issued)
    assert refused is not None and "unexpected `tool_use_id`" in refused[1]
    unanswered = _turn2_anthropic(sig)
    unanswered["messages"][2]["content"] = "never mind, what is 2+2?"
    refused = _check("anthropic", unanswered, issued)
    assert refused is not None and refused[1].startswith(
        "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
        "toolu_1."
    )
    first_turn = {"model": "c", "max_tokens": 9, "messages": [{"role": "user", "content": "hi"}]}
    assert _check("anthropic", first_turn, issued) is None


def test_responses_encrypted_content_pairs_and_previous_response(issued: Issued) -> None:
    issued.values.add("gAAAAB-issued")
    call = {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": "{}"}
    out = {"type": "function_call_output", "call_id": "call_1", "output": "sunny"}

    def body(content: str, output: dict[str, Any] = out) -> dict[str, Any]:
        reasoning = {"type": "reasoning", "id": "rs_1", "summary": [],
                     "encrypted_content": content}  # fmt: skip
        return {"model": "gpt-5", "stream": True, "store": False,
                "input": [{"role": "user", "content": "hi"}, reasoning, call, output]}  # fmt: skip

    assert _check("responses", body("gAAAAB-issued"), issued) is None
    assert _check("responses", body("gAAAAB-changed"), issued) == (
        400, "The encrypted content for item rs_1 could not be verified.",
    )  # fmt: skip
    stateless = body("gAAAAB-issued")
    stateless["input"][1].pop("encrypted_content")
    assert _check("responses", stateless, issued) == (
        404, "Item with id 'rs_1' not found. Items are not persisted when `store` is set to "
        "false. Try again with `store` set to true, or remove this item from your input.",
    )  # fmt: skip
    assert _check("responses", {**stateless, "store": True}, issued) is None  # stored: found
    stray = {**out, "call_id": "call_9"}
    refused = _check("responses", body("gAAAAB-issued", stray), issued)
    assert refused == (400, "No tool call found for function call output with call_id call_9.")
    [known] = sorted(issued.response_ids)[:1] or ["none"]
    assert _check("responses", {"previous_response_id": known, "input": []}, issued) is None
    assert _check("responses", {"previous_response_id": "resp_x", "input": []}, issued) == (
        400, "Previous response with id 'resp_x' not found.",
    )  # fmt: skip


def test_gemini_a_signed_call_comes_back_with_its_signature(
    recs: dict[str, Loaded], issued: Issued
) -> None:
    [sig] = _state(recs["gemini"])
    call = {"functionCall": {"name": "get_weather", "args": {"city": "Lisbon"}}}

    def body(part: dict[str, Any]) -> dict[str, Any]:
        return {"contents": [
            {"role": "user", "parts": [{"text": "Weather?"}]},
            {"role": "model", "parts": [part]},
            {"role": "user", "parts": [{"functionResponse": {"name": "get_weather",
                                                             "response": {"t": 20}}}]},
        ]}  # fmt: skip

    assert _check("gemini", body({**call, "thoughtSignature": sig}), issued) is None
    # the proto's spelling, as LiteLLM writes it, is the same call
    snake = {"function_call": call["functionCall"]}
    assert _check("gemini", body({**snake, "thoughtSignature": sig}), issued) is None
    assert _check("gemini", body(snake), issued) is not None
    missing = _check("gemini", body(call), issued)
    assert missing is not None and missing[1].startswith(
        "Function call is missing a thought_signature in functionCall parts"
    )
    assert _check("gemini", body({**call, "thoughtSignature": "bm9wZQ=="}), issued) is not None
    # the values Gemini takes to skip its check: Gemini CLI's, and the one Google's docs give
    for skip in sorted(GEMINI_SKIP_SIGNATURES):
        assert _check("gemini", body({**call, "thoughtSignature": skip}), issued) is None, skip
    assert GEMINI_CLI_SIGNATURE in GEMINI_SKIP_SIGNATURES


# -- through a running replay upstream, read by the providers' own SDKs -------------------------


LOG: list[str] = []  # the module's server's log lines


@pytest.fixture(scope="module")
def server(recs: dict[str, Loaded]) -> Iterator[ReplayServer]:
    srv = ReplayServer(list(recs.values()), host=HOST, port=0, speed=0, log=LOG.append)
    with srv.running():
        yield srv


def test_the_anthropic_sdk_raises_the_provider_s_refusal(
    server: ReplayServer, recs: dict[str, Loaded]
) -> None:
    [sig] = _state(recs["anthropic"])
    client = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
    good = _turn2_anthropic(sig)
    good.pop("stream")
    with client.messages.stream(**good) as stream:
        assert stream.get_final_message().content  # the recording's answer: accepted
    bad = _turn2_anthropic(sig[::-1])
    bad.pop("stream")
    with pytest.raises(anthropic.BadRequestError) as caught, client.messages.stream(**bad) as s:
        s.get_final_message()
    assert caught.value.status_code == 400
    assert "Invalid `signature` in `thinking` block" in str(caught.value)
    # replay logs once the answer is written, on its own thread: the SDK may raise first
    deadline = time.monotonic() + 5
    while not any("refused: messages.1.content.0: Invalid" in line for line in LOG):
        assert time.monotonic() < deadline, LOG
        time.sleep(0.01)
    assert any("400" in line and "refused: messages.1.content.0: Invalid" in line for line in LOG)


def test_the_openai_sdk_raises_invalid_encrypted_content(server: ReplayServer) -> None:
    client = openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAAB-x"}
    with pytest.raises(openai.BadRequestError) as caught:
        client.responses.create(model="gpt-5", input=[reasoning], store=False)  # type: ignore[list-item]
    assert caught.value.status_code == 400 and caught.value.code == "invalid_encrypted_content"


def test_a_first_turn_is_served_as_before(server: ReplayServer) -> None:
    body = {"model": "claude", "max_tokens": 9, "stream": True,
            "messages": [{"role": "user", "content": "hi"}]}  # fmt: skip
    resp = httpx.post(server.url + "/v1/messages", json=body, timeout=10)
    assert resp.status_code == 200 and b"message_stop" in resp.content


def test_chat_pairs_each_tool_message_with_a_call(issued: Issued) -> None:
    """Chat verifies no state, but OpenAI refuses a history whose tool messages and calls
    do not pair: a tool message answers a call of the assistant message before it, and
    every call is answered before the conversation goes on."""
    call = {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}

    def body(*after: dict[str, Any]) -> dict[str, Any]:
        assistant = {"role": "assistant", "content": None, "tool_calls": [call]}
        return {"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}, assistant,
                                                  *after]}  # fmt: skip

    answer = {"role": "tool", "tool_call_id": "call_1", "content": "sunny"}
    assert _check("openai", body(answer), issued) is None
    assert _check("openai", body(answer, {"role": "user", "content": "and?"}), issued) is None
    stray = _check("openai", body({**answer, "tool_call_id": "call_9"}), issued)
    assert stray == (
        400, "Invalid parameter: messages with role 'tool' must be a response to a preceeding "
        "message with 'tool_calls'.",
    )  # fmt: skip
    unanswered = _check("openai", body({"role": "user", "content": "never mind"}), issued)
    assert unanswered is not None and unanswered[1].endswith(
        "The following tool_call_ids did not have response messages: call_1"
    )
    assert _check("openai", {"messages": [{"role": "user", "content": "hi"}]}, issued) is None


@pytest.mark.parametrize(
    ("asked", "message"),
    [
        ({"max_tokens": 1024, "thinking": {"type": "enabled", "budget_tokens": 1024}},
         "`max_tokens` must be greater than `thinking.budget_tokens`"),
        ({"max_tokens": 4096, "thinking": {"type": "enabled", "budget_tokens": 512}},
         "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"),
        ({"max_tokens": 4096, "extra_body": {"temperature": 0.2},
          "thinking": {"type": "enabled", "budget_tokens": 2048}},
         "`temperature` may only be set to 1 when thinking is enabled"),
        ({"max_tokens": 4096, "tool_choice": {"type": "tool", "name": "f"},
          "tools": [{"name": "f", "input_schema": {"type": "object"}}],
          "thinking": {"type": "enabled", "budget_tokens": 2048}},
         "Thinking may not be enabled when tool_choice forces tool use."),
    ],
)  # fmt: skip
def test_the_anthropic_sdk_raises_what_anthropic_refuses_of_thinking(
    shared_server: Any, asked: dict[str, Any], message: str
) -> None:
    """A request Anthropic refuses for its thinking settings is refused so: the SDK raises
    BadRequestError, 400, invalid_request_error, with the provider's words."""

    client = anthropic.Anthropic(base_url=shared_server.url, api_key="k", max_retries=0)
    with pytest.raises(anthropic.BadRequestError) as caught:
        client.messages.create(
            model="claude-test", messages=[{"role": "user", "content": "hi"}], stream=True,
            **asked,
        )  # fmt: skip
    assert caught.value.status_code == 400
    assert caught.value.body["error"]["type"] == "invalid_request_error"  # type: ignore[index]
    assert message in caught.value.body["error"]["message"]  # type: ignore[index]


#: (endpoint, the request's settings, the code OpenAI answers, the start of its message)
OPENAI_REFUSALS = [
    ("chat", {"model": "gpt-5-mini", "max_tokens": 100}, "unsupported_parameter",
     "Unsupported parameter: 'max_tokens' is not supported with this model. "
     "Use 'max_completion_tokens' instead."),
    ("chat", {"model": "o4-mini", "temperature": 0.3}, "unsupported_value",
     "Unsupported value: 'temperature' does not support 0.3 with this model. "
     "Only the default (1) value is supported."),
    ("chat", {"model": "gpt-5.1", "temperature": 0.3, "reasoning_effort": "low"},
     "unsupported_value", "Unsupported value: 'temperature' does not support 0.3"),
    ("responses", {"model": "gpt-5-mini", "temperature": 0.2}, None,
     "Unsupported parameter: 'temperature' is not supported with this model."),
]  # fmt: skip


@pytest.mark.parametrize(("endpoint", "asked", "code", "message"), OPENAI_REFUSALS)
def test_openai_python_raises_what_openai_refuses_of_a_reasoning_model(
    shared_server: Any, endpoint: str, asked: dict[str, Any], code: str | None, message: str
) -> None:
    """A reasoning model's request OpenAI refuses is refused so: openai-python raises
    BadRequestError, 400, invalid_request_error, with OpenAI's code, param and words."""
    client = openai.OpenAI(base_url=shared_server.url + "/v1", api_key="k", max_retries=0)
    with pytest.raises(openai.BadRequestError) as caught:
        if endpoint == "chat":
            client.chat.completions.create(
                messages=[{"role": "user", "content": "hi"}], stream=True, **asked
            )
        else:
            client.responses.create(input="hi", stream=True, **asked)
    body: Any = caught.value.body
    assert caught.value.status_code == 400
    assert (body["type"], body["code"]) == ("invalid_request_error", code)
    assert body["param"] == next(k for k in asked if k in ("max_tokens", "temperature"))
    assert body["message"].startswith(message)


@pytest.mark.parametrize(
    ("endpoint", "asked"),
    [
        ("chat", {"model": "gpt-4.1", "max_tokens": 100, "temperature": 0.3}),
        ("chat", {"model": "gpt-5-mini", "max_completion_tokens": 100, "temperature": 1}),
        ("chat", {"model": "gpt-5.1", "temperature": 0.3}),  # effort none: it takes one
        ("responses", {"model": "gpt-5.1", "temperature": 0.3}),
        ("responses", {"model": "gpt-4.1", "temperature": 0.3, "max_output_tokens": 100}),
    ],
)
def test_what_openai_takes_is_not_refused(endpoint: str, asked: dict[str, Any]) -> None:
    from sseconform.wires import by_endpoint

    assert by_endpoint(endpoint).refuse(asked) is None


def test_gemini_refuses_a_top_level_name_it_has_no_field_for(shared_server: Any) -> None:
    """Gemini's request has no ``stream`` (a gateway that leaves it in the body is refused):
    400 INVALID_ARGUMENT, "Unknown name ...: Cannot find field.", a line and a field violation
    for each; either spelling of a known field is taken."""
    url = shared_server.url + "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"
    contents = [{"role": "user", "parts": [{"text": "hi"}]}]
    r = httpx.post(url, json={"contents": contents, "stream": True, "max_tokens": 5})
    assert r.status_code == 400
    error = r.json()["error"]
    assert (error["code"], error["status"]) == (400, "INVALID_ARGUMENT")
    assert error["message"].splitlines() == [
        'Invalid JSON payload received. Unknown name "stream": Cannot find field.',
        'Invalid JSON payload received. Unknown name "max_tokens": Cannot find field.',
    ]
    [bad] = error["details"]
    assert bad["@type"] == "type.googleapis.com/google.rpc.BadRequest"
    assert len(bad["fieldViolations"]) == 2
    from sseconform.wires import by_endpoint

    taken = {"contents": contents, "generation_config": {}, "systemInstruction": {}, "model": "m"}
    assert by_endpoint("gemini").refuse(taken) is None


#: (endpoint, another wire's field a gateway left in, the provider's words, code, param)
FOREIGN = [
    ("messages", {"response_format": {"type": "json_object"}},
     "response_format: Extra inputs are not permitted", None, None),
    ("messages", {"reasoning_effort": "low"},
     "reasoning_effort: Extra inputs are not permitted", None, None),
    ("chat", {"thinking": {"type": "enabled", "budget_tokens": 1024}},
     "Unrecognized request argument supplied: thinking", None, None),
    ("chat", {"top_k": 40}, "Unrecognized request argument supplied: top_k", None, None),
    ("responses", {"max_tokens": 64}, "Unknown parameter: 'max_tokens'.",
     "unknown_parameter", "max_tokens"),
    ("responses", {"messages": []}, "Unknown parameter: 'messages'.",
     "unknown_parameter", "messages"),
]  # fmt: skip


@pytest.mark.parametrize(("endpoint", "extra", "message", "code", "param"), FOREIGN)
def test_another_wire_s_field_is_refused_as_the_provider_refuses_it(
    shared_server: Any,
    endpoint: str,
    extra: dict[str, Any],
    message: str,
    code: str | None,
    param: str | None,
) -> None:
    """A field of another wire's request that a gateway leaves in the body it forwards
    (``response_format`` toward Anthropic, ``thinking`` toward OpenAI) is refused in the
    provider's words, and each SDK raises BadRequestError 400 with them."""
    if endpoint == "messages":
        client = anthropic.Anthropic(base_url=shared_server.url, api_key="k", max_retries=0)
        with pytest.raises(anthropic.BadRequestError) as caught:
            client.messages.create(
                model="claude-test", messages=[{"role": "user", "content": "hi"}],
                stream=True, max_tokens=64, extra_body=extra,
            )  # fmt: skip
        body: Any = caught.value.body
        assert caught.value.status_code == 400
        assert body["error"] == {"type": "invalid_request_error", "message": message}
        return
    client_ = openai.OpenAI(base_url=shared_server.url + "/v1", api_key="k", max_retries=0)
    with pytest.raises(openai.BadRequestError) as raised:
        if endpoint == "chat":
            client_.chat.completions.create(
                model="gpt-4.1", messages=[{"role": "user", "content": "hi"}], stream=True,
                extra_body=extra,
            )  # fmt: skip
        else:
            client_.responses.create(model="gpt-4.1", input="hi", stream=True, extra_body=extra)
    said: Any = raised.value.body
    assert raised.value.status_code == 400
    assert said == {"message": message, "type": "invalid_request_error", "code": code,
                    "param": param}  # fmt: skip


@pytest.mark.parametrize("endpoint", ["chat", "messages", "responses", "gemini"])
def test_a_wire_s_own_fields_and_a_bare_request_are_taken(endpoint: str) -> None:
    """Every field of a wire's own request is taken (however many other wires share it),
    and a body without the wire's conversation (a bare test request) is never refused."""
    from sseconform.wires import by_endpoint, refusal

    wire = by_endpoint(endpoint)
    own = dict.fromkeys(wire.request_fields, None) | {wire.conversation: []}
    own.pop("model", None)  # a model name would bring the reasoning models' own rules
    assert refusal(wire, own) is None
    bare = {"max_completion_tokens": 1, "generationConfig": {}, "stop_sequences": [], "n": 1}
    assert refusal(wire, bare) is None
