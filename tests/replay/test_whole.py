"""Non-streaming requests: replay answers each dialect's with one JSON object, read by the
providers' own SDKs, and each equals what the same SDK makes of the streamed recording.

openai-python (chat and Responses), anthropic-sdk and google-genai each call the server on
127.0.0.1 twice per recording: once streaming (the SDK's own accumulator gives the final
answer) and once without streaming (the SDK parses replay's JSON answer). What a client reads
must be the same either way, which is what a gateway that calls its upstream without
streaming relies on. Faults: a drop is a connection error, an injected error event the
provider's HTTP error, a stall a later answer.
"""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any, cast

import anthropic
import openai
import pytest
from google import genai
from google.genai import types as genai_types
from openai.types.chat import ChatCompletionMessageFunctionToolCall as FunctionToolCall

from sseconform.replay.faults import parse_faults
from sseconform.replay.plan import load
from sseconform.replay.server import ReplayServer
from sseconform.replay.whole import whole_plan
from sseconform.sse import decode_all
from sseconform.wires import fold
from sseconform.wires.reassemble import reassemble
from tests.replay.conftest import (
    HOST,
    LOADED,
    client,
    headers_for,
    rec,
    serving,
)

MESSAGES: list[Any] = [{"role": "user", "content": "Hi"}]


def of(dialect: str) -> list[str]:
    """Every loaded recording of one dialect whose stream ends as its provider ends one."""
    return sorted(n for n, r in LOADED.items() if r.dialect == dialect)


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    logged: list[str] = []
    with serving(log=logged.append) as s:
        s.logged = logged  # type: ignore[attr-defined]
        yield s


# -- OpenAI chat -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def oai(server: ReplayServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0, timeout=10) as c:
        yield c


def _chat_view(message: Any, finish: str | None) -> dict[str, Any]:
    calls = [
        (tc.id, tc.function.name, json.loads(tc.function.arguments or "{}"))
        for tc in message.tool_calls or []
    ]
    return {"text": message.content or "", "calls": calls, "finish": finish}


@pytest.mark.parametrize("name", of("openai"))
def test_chat_answer_is_what_the_sdk_makes_of_the_stream(oai: openai.OpenAI, name: str) -> None:
    headers = headers_for(name)
    try:
        with oai.chat.completions.stream(
            model="m", messages=MESSAGES, extra_headers=headers
        ) as stream:
            final = stream.get_final_completion()
    except openai.APIError as exc:  # the recording's stream fails: so does the answer
        with pytest.raises(openai.APIStatusError) as failed:
            oai.chat.completions.create(model="m", messages=MESSAGES, extra_headers=headers)
        assert failed.value.status_code >= 500, exc
        return
    except (IndexError, TypeError):
        # openai-python's accumulator crashes on some providers' chunks (Mistral's calls
        # without an index, a gateway's moving index): the careful reading is the reference
        final = None
    whole = oai.chat.completions.create(model="m", messages=MESSAGES, extra_headers=headers)
    assert whole.object == "chat.completion"
    if final is None:
        folded = reassemble(rec(name).body)
        assert [c.message.content or "" for c in whole.choices] == [
            c.text for c in folded.choices.values()
        ]
        # a recording streams function calls only (the SDK reads a call without "type" as one)
        assert [[(t.id, t.function.name, t.function.arguments)
                 for t in cast("list[FunctionToolCall]", c.message.tool_calls or [])]
                for c in whole.choices] == [
            [(t.id, t.name, t.arguments) for t in c.tool_calls.values()]
            for c in folded.choices.values()
        ]  # fmt: skip
        return
    assert (whole.id, whole.model, whole.created) == (final.id, final.model, final.created)
    assert len(whole.choices) == len(final.choices)
    for got, want in zip(whole.choices, final.choices, strict=True):
        assert _chat_view(got.message, got.finish_reason) == _chat_view(
            want.message, want.finish_reason
        )
    assert (whole.usage is None) == (final.usage is None)
    if whole.usage is not None and final.usage is not None:
        assert whole.usage.total_tokens == final.usage.total_tokens


# -- Anthropic Messages ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def claude(server: ReplayServer) -> Iterator[anthropic.Anthropic]:
    with anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0, timeout=10) as c:
        yield c


@pytest.mark.parametrize("name", of("anthropic"))
def test_message_answer_is_the_sdks_accumulated_message(
    claude: anthropic.Anthropic, name: str
) -> None:
    kwargs: dict[str, Any] = {
        "model": "m",
        "max_tokens": 1024,
        "messages": MESSAGES,
        "extra_headers": headers_for(name),
    }
    try:
        with claude.messages.stream(**kwargs) as stream:
            final = stream.get_final_message()
    except anthropic.APIError:
        with pytest.raises(anthropic.APIStatusError) as failed:
            claude.messages.create(**kwargs)
        assert failed.value.status_code in (500, 529)
        assert failed.value.body["type"] == "error"  # type: ignore[index]
        return
    whole = claude.messages.create(**kwargs)
    assert whole.model_dump() == final.model_dump()


# -- Responses -------------------------------------------------------------------------------


def _terminal(name: str) -> dict[str, Any] | None:
    """The ``response`` of the recording's terminal event, or None when it failed."""
    for event in decode_all(rec(name).body)[0]:
        data = json.loads(event.data)
        if data.get("type") in ("response.completed", "response.incomplete"):
            return dict(data["response"])
    return None


@pytest.mark.parametrize("name", of("responses"))
def test_response_answer_is_the_terminal_response(oai: openai.OpenAI, name: str) -> None:
    """The answer is the terminal event's ``response`` (completed or incomplete), which the SDK
    parses; openai-python's ``responses.stream()`` only accepts ``response.completed``."""
    kwargs: dict[str, Any] = {"model": "m", "input": "Hi", "extra_headers": headers_for(name)}
    terminal = _terminal(name)
    if terminal is None:
        with pytest.raises(openai.APIStatusError) as failed:
            oai.responses.create(**kwargs)
        assert failed.value.status_code >= 500
        return
    raw = oai.responses.with_raw_response.create(**kwargs)
    assert raw.http_response.json() == terminal
    whole = raw.parse()
    assert whole.status == terminal["status"]
    if whole.status == "completed":
        with oai.responses.stream(**kwargs) as stream:
            final = stream.get_final_response()
        assert final.output_text == whole.output_text
        assert [o.type for o in final.output] == [o.type for o in whole.output]


# -- Gemini ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gemini(server: ReplayServer) -> Iterator[genai.Client]:
    with genai.Client(
        api_key="k",
        http_options=genai_types.HttpOptions(base_url=server.url, timeout=10_000),
    ) as client:  # closed: left to the garbage collector, its socket warns in a later test
        yield client


def _gemini_view(responses: list[dict[str, Any]]) -> dict[str, Any]:
    """What a client reads of Gemini responses, as plain JSON (some recordings carry
    synthetic thought signatures google-genai refuses as base64, so the SDK cannot parse
    every stream; where it can, the test also parses the answer with it)."""
    text, thought, calls, finish = "", "", [], None
    for r in responses:
        for cand in r.get("candidates") or []:
            finish = cand.get("finishReason") or finish
            for part in (cand.get("content") or {}).get("parts") or []:
                if "functionCall" in part:
                    calls.append(part["functionCall"])
                elif part.get("thought"):
                    thought += part.get("text", "")
                else:
                    text += part.get("text", "")
    return {"text": text, "thought": thought, "calls": calls, "finish": finish}


@pytest.mark.parametrize("name", of("gemini"))
def test_generate_content_answer_joins_the_streamed_parts(
    server: ReplayServer, gemini: genai.Client, name: str
) -> None:
    streamed = [json.loads(e.data) for e in decode_all(rec(name).body)[0]]
    url = server.url + "/v1beta/models/m:generateContent"
    with client() as http:
        asks = {"thinkingConfig": {"includeThoughts": True}}  # thought parts shown
        resp = http.post(
            url, json={"contents": [], "generationConfig": asks}, headers=headers_for(name)
        )
    if any("error" in s for s in streamed):
        assert resp.status_code >= 500 and "error" in resp.json()
        return
    assert resp.status_code == 200
    whole = resp.json()
    assert _gemini_view([whole]) == _gemini_view(streamed)
    assert whole.get("usageMetadata") == streamed[-1].get("usageMetadata")
    parts = whole["candidates"][0]["content"]["parts"]
    assert len([p for p in parts if "text" in p and not p.get("thought")]) <= 1
    if all(_signatures_decode(s) for s in streamed):
        config = genai_types.GenerateContentConfig(
            http_options=genai_types.HttpOptions(headers=headers_for(name))
        )
        parsed = gemini.models.generate_content(model="m", contents="Hi", config=config)
        joined = "".join(
            c.text or ""
            for r in gemini.models.generate_content_stream(model="m", contents="Hi", config=config)
            for c in [r]
        )
        assert (parsed.text or "") == joined


def _signatures_decode(response: dict[str, Any]) -> bool:
    for cand in response.get("candidates") or []:
        for part in (cand.get("content") or {}).get("parts") or []:
            try:
                base64.b64decode(part.get("thoughtSignature", ""), validate=True)
            except ValueError:
                return False
    return True


# -- faults and timing -----------------------------------------------------------------------


def test_a_drop_is_a_connection_error_before_any_answer(oai: openai.OpenAI) -> None:
    with pytest.raises(openai.APIConnectionError):
        oai.chat.completions.create(
            model="m",
            messages=MESSAGES,
            extra_headers=headers_for("text-usage.jsonl", "drop-after-events=2"),
        )


def test_an_injected_error_is_the_providers_http_error(claude: anthropic.Anthropic) -> None:
    with pytest.raises(anthropic.APIStatusError) as failed:
        claude.messages.create(
            model="m",
            max_tokens=10,
            messages=MESSAGES,
            extra_headers=headers_for("messages-text.jsonl", "error-at=2"),
        )
    assert failed.value.status_code == 529
    assert failed.value.body == {  # the in-band error, as Anthropic answers it over HTTP
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    assert failed.value.response.headers["retry-after"] == "1"


def test_a_status_fault_refuses_as_before(oai: openai.OpenAI) -> None:
    with pytest.raises(openai.RateLimitError) as failed:
        oai.chat.completions.create(
            model="m",
            messages=MESSAGES,
            extra_headers=headers_for("text-usage.jsonl", "status=429"),
        )
    assert failed.value.response.headers["retry-after"] == "1"


def test_truncate_last_cuts_the_answer_short(oai: openai.OpenAI) -> None:
    with pytest.raises(openai.APIConnectionError):
        oai.chat.completions.create(
            model="m",
            messages=MESSAGES,
            extra_headers=headers_for("text-usage.jsonl", "truncate-last"),
        )


@pytest.mark.parametrize("name", ["messages-text.jsonl", "text-usage.jsonl", "gemini-text.jsonl"])
def test_the_answer_comes_when_the_stream_would_have_ended(name: str) -> None:
    r = rec(name)
    end = max(t for t, _ in r.reads)
    path = {
        "anthropic": "/v1/messages",
        "openai": "/v1/chat/completions",
        "gemini": "/v1beta/models/m:generateContent",
    }[str(r.dialect)]
    with serving([name], speed=1) as s, client() as http:
        t0 = time.monotonic()
        resp = http.post(s.url + path, json={"model": "m"})
        took = time.monotonic() - t0
    assert resp.status_code == 200 and resp.headers["content-type"] == "application/json"
    assert int(resp.headers["content-length"]) == len(resp.content)
    assert end - 0.05 < took < end + 0.5, (took, end)


def test_a_stall_delays_the_answer() -> None:
    with serving(["text-usage.jsonl"]) as s, client() as http:
        t0 = time.monotonic()
        resp = http.post(
            s.url + "/v1/chat/completions",
            json={"model": "m"},
            headers=headers_for(fault="stall=0.4@1"),
        )
        assert resp.status_code == 200 and 0.4 <= time.monotonic() - t0 < 2


def test_the_log_says_which_form_was_served(server: ReplayServer, oai: openai.OpenAI) -> None:
    headers = headers_for("text-usage.jsonl")
    oai.chat.completions.create(model="m", messages=MESSAGES, extra_headers=headers)
    logged: list[str] = server.logged  # type: ignore[attr-defined]
    deadline = time.monotonic() + 5
    while not any("as json (not streamed)" in line for line in logged):
        assert time.monotonic() < deadline, logged[-3:]
        time.sleep(0.01)
    line = [line for line in logged if "as json (not streamed)" in line][-1]
    assert line.startswith(f"{HOST}:") and "text-usage.jsonl as json (not streamed) 200" in line


def test_a_recording_that_never_ended_has_no_answer(tmp_path: Any) -> None:
    body = rec("messages-text.jsonl").body
    cut = tmp_path / "cut.sse"
    cut.write_bytes(body[: body.index(b"event: message_stop")])
    plan = whole_plan(load(str(cut)))
    assert plan.ending == "abort" and plan.spans == []
    assert not fold("anthropic", cut.read_bytes()).answered


def test_faults_that_fire_are_named() -> None:
    r = rec("messages-text.jsonl")
    assert whole_plan(r).will_fire == []
    assert whole_plan(r, faults=parse_faults("error-at=1")).will_fire == ["error"]
    assert whole_plan(r, faults=parse_faults("drop-after-events=1")).will_fire == ["drop"]
    assert whole_plan(r, faults=parse_faults("stall=1@1")).will_fire == ["stall"]
    assert whole_plan(r, faults=parse_faults("truncate-last")).will_fire == ["truncate"]
