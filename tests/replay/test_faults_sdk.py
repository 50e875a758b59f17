"""Each fault as real clients see it: httpx, the ``openai`` SDK and the ``anthropic`` SDK.

The server runs on 127.0.0.1 at speed 0; each request picks its fault with the
``x-sseconform-fault`` header (``extra_headers`` in the SDKs) and, where routing alone would
not, its recording with ``x-sseconform-recording``. What the SDKs do is asserted as observed
(openai 3.52, anthropic 2.11, both on httpx2); where an SDK's behaviour is surprising the test
says so in its docstring.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx
import httpx2
import openai
import pytest

from sseconform.replay.server import ReplayServer
from sseconform.sse import decode_all
from tests.replay.conftest import (
    ANTHROPIC_TOOL,
    GEMINI,
    PATHS,
    RESPONSES,
    TEXT,
    TOOLS,
    body_through,
    client,
    fetch_raw,
    headers_for,
    path_for,
    rec,
)

MESSAGES: list[Any] = [{"role": "user", "content": "Hi"}]


def recorded_events(name: str) -> list[dict[str, Any]]:
    events, _ = decode_all(rec(name).body)
    return [json.loads(e.data) for e in events if e.data != "[DONE]"]


def chat_text(name: str) -> str:
    return "".join(
        ch["delta"].get("content") or ""
        for obj in recorded_events(name)
        for ch in obj.get("choices") or []
    )


# -- clients -------------------------------------------------------------------------------


@pytest.fixture
def oai(shared_server: ReplayServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(
        base_url=shared_server.url + "/v1", api_key="test", max_retries=0, timeout=10
    ) as c:
        yield c


@pytest.fixture
def claude(shared_server: ReplayServer) -> Iterator[anthropic.Anthropic]:
    with anthropic.Anthropic(
        base_url=shared_server.url, api_key="test", max_retries=0, timeout=10
    ) as c:
        yield c


def chat_chunks(
    o: openai.OpenAI, fault: str | None, name: str = TEXT, timeout: float = 10
) -> tuple[list[Any], BaseException | None]:
    """Chunks received before the stream ended or raised, and what it raised."""
    got: list[Any] = []
    try:
        stream = o.chat.completions.create(
            model="gpt-4o-mini",
            messages=MESSAGES,
            stream=True,
            timeout=timeout,
            extra_headers=headers_for(name, fault),
        )
        for chunk in stream:
            got.append(chunk)
    except Exception as exc:
        return got, exc
    return got, None


def claude_events(
    c: anthropic.Anthropic, fault: str | None, timeout: float = 10
) -> tuple[list[str], BaseException | None]:
    got: list[str] = []
    try:
        stream = c.messages.create(
            model="claude-sonnet-4-6",
            max_tokens=1024,
            messages=MESSAGES,
            stream=True,
            timeout=timeout,
            extra_headers=headers_for(fault=fault),
        )
        for event in stream:
            got.append(event.type)
    except Exception as exc:
        return got, exc
    return got, None


def recorded_anthropic_types() -> list[str]:
    """The event types the SDK yields for the whole recording: everything but ``ping``."""
    return [e["type"] for e in recorded_events(ANTHROPIC_TOOL) if e["type"] != "ping"]


# -- httpx ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "status", "kind"),
    [
        (ANTHROPIC_TOOL, 429, "rate_limit_error"),
        (ANTHROPIC_TOOL, 500, "api_error"),
        (ANTHROPIC_TOOL, 529, "overloaded_error"),
        (TEXT, 429, "requests"),
        (TEXT, 500, "server_error"),
        (GEMINI, 429, "RESOURCE_EXHAUSTED"),
    ],
)
def test_httpx_status(shared_server: ReplayServer, name: str, status: int, kind: str) -> None:
    with client() as http:
        resp = http.post(
            shared_server.url + path_for(name),
            json={},
            headers=headers_for(name, f"status={status}"),
        )
    assert resp.status_code == status
    assert resp.headers["content-type"] == "application/json"
    assert int(resp.headers["content-length"]) == len(resp.content)
    error = resp.json()["error"]
    assert kind in (error.get("type"), error.get("status"))
    assert isinstance(error["message"], str)


@pytest.mark.parametrize("name", [TEXT, ANTHROPIC_TOOL, RESPONSES, GEMINI])
def test_httpx_drop_after_events(shared_server: ReplayServer, name: str) -> None:
    with client() as http:
        status, got, exc = fetch_raw(
            http,
            shared_server.url + path_for(name),
            headers=headers_for(name, "drop-after-events=2"),
        )
    assert status == 200 and got == body_through(name, 2)
    # the reset comes after every byte before the cut: httpx reads them, then the reset
    assert isinstance(exc, httpx.ReadError)
    assert "Connection reset by peer" in str(exc)


def test_httpx_drop_after_bytes(shared_server: ReplayServer) -> None:
    with client() as http:
        status, got, exc = fetch_raw(
            http,
            shared_server.url + PATHS["openai"],
            headers=headers_for(TEXT, "drop-after-bytes=777"),
        )
    assert (status, got) == (200, rec(TEXT).body[:777])
    assert isinstance(exc, httpx.ReadError)


def test_httpx_stall_shorter_and_longer_than_the_timeout(shared_server: ReplayServer) -> None:
    url = shared_server.url + PATHS["anthropic"]
    with client(timeout=httpx.Timeout(5, read=0.2)) as http:
        t0 = time.monotonic()
        status, got, exc = fetch_raw(http, url, headers=headers_for(ANTHROPIC_TOOL, "stall=1@3"))
        assert isinstance(exc, httpx.ReadTimeout)
        assert got == body_through(ANTHROPIC_TOOL, 3)
        assert 0.2 <= time.monotonic() - t0 < 0.8
    with client(timeout=httpx.Timeout(5, read=1.0)) as http:
        status, got, exc = fetch_raw(http, url, headers=headers_for(ANTHROPIC_TOOL, "stall=0.3@3"))
        assert (status, got, exc) == (200, rec(ANTHROPIC_TOOL).body, None)


@pytest.mark.parametrize("name", [TEXT, ANTHROPIC_TOOL, RESPONSES, GEMINI])
def test_httpx_error_at_and_truncate_last_end_cleanly(
    shared_server: ReplayServer, name: str
) -> None:
    url = shared_server.url + path_for(name)
    with client() as http:
        status, got, exc = fetch_raw(http, url, headers=headers_for(name, "error-at=2"))
        assert exc is None and got.startswith(body_through(name, 2))
        events, _ = decode_all(got)
        last = json.loads(events[-1].data)
        assert len(events) == 3 and (last.get("type") == "error" or set(last) == {"error"})
        status, got, exc = fetch_raw(http, url, headers=headers_for(name, "truncate-last"))
        assert status == 200 and exc is None
        assert rec(name).body.startswith(got) and got != rec(name).body


# -- openai: chat completions ---------------------------------------------------------------


def test_openai_chat_without_fault(oai: openai.OpenAI) -> None:
    chunks, exc = chat_chunks(oai, None)
    assert exc is None
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == chat_text(TEXT)
    assert chunks[-1].usage is not None


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (429, openai.RateLimitError),
        (500, openai.InternalServerError),
        (529, openai.InternalServerError),  # openai has no class of its own for 529
    ],
)
def test_openai_status(oai: openai.OpenAI, status: int, error: type[openai.APIStatusError]) -> None:
    chunks, exc = chat_chunks(oai, f"status={status}")
    assert chunks == [] and type(exc) is error
    assert exc.status_code == status
    if status == 429:
        assert exc.code == "rate_limit_exceeded"


def test_openai_drop_after_events(oai: openai.OpenAI) -> None:
    """openai wraps the transport error: APIConnectionError, caused by httpx2's ReadError
    (the reset); the four chunks before the drop were delivered."""
    chunks, exc = chat_chunks(oai, "drop-after-events=4")
    assert len(chunks) == 4
    assert type(exc) is openai.APIConnectionError
    assert isinstance(exc.__cause__, httpx2.ReadError)


def test_openai_stall(oai: openai.OpenAI) -> None:
    """A read timeout mid-stream is wrapped too: APITimeoutError after the chunks before it."""
    t0 = time.monotonic()
    chunks, exc = chat_chunks(oai, "stall=1@3", timeout=0.2)
    assert len(chunks) == 3 and type(exc) is openai.APITimeoutError
    assert isinstance(exc.__cause__, httpx2.ReadTimeout)
    assert time.monotonic() - t0 < 0.8
    chunks, exc = chat_chunks(oai, "stall=0.3@3", timeout=1.0)
    assert exc is None and len(chunks) == len(recorded_events(TEXT))


def test_openai_error_at(oai: openai.OpenAI) -> None:
    """A ``data: {"error": ...}`` frame: APIError (not an APIStatusError: the status was 200)
    with the frame's message and the error object as its body."""
    chunks, exc = chat_chunks(oai, "error-at=3")
    assert len(chunks) == 3
    assert type(exc) is openai.APIError
    assert exc.message == "The server had an error while processing your request."
    assert isinstance(exc.body, dict) and exc.body["type"] == "server_error"


def test_openai_truncate_last(oai: openai.OpenAI) -> None:
    """The cut last event is ``[DONE]``: the SDK's decoder drops the unterminated event and
    the stream simply ends, no error: every chunk arrived, the missing [DONE] goes unnoticed."""
    chunks, exc = chat_chunks(oai, "truncate-last")
    assert exc is None
    assert len(chunks) == len(recorded_events(TEXT))


def test_openai_stream_helper_with_a_truncated_tool_call_stream(oai: openai.OpenAI) -> None:
    """The ``.stream()`` accumulator does not need [DONE] either: the final completion is whole."""
    with oai.chat.completions.stream(
        model="gpt-4o-mini",
        messages=MESSAGES,
        extra_headers=headers_for(TOOLS, "truncate-last"),
    ) as stream:
        for _ in stream:
            pass
        final = stream.get_final_completion()
    choice = final.choices[0]
    assert choice.finish_reason == "tool_calls"
    calls = choice.message.tool_calls or []
    assert [json.loads(c.function.arguments)["city"] for c in calls] == ["Paris", "Tokyo"]


# -- openai: responses ---------------------------------------------------------------------


def responses_events(o: openai.OpenAI, fault: str | None) -> tuple[list[Any], BaseException | None]:
    got: list[Any] = []
    try:
        for event in o.responses.create(
            model="gpt-4.1-mini", input="Hi", stream=True, extra_headers=headers_for(fault=fault)
        ):
            got.append(event)
    except Exception as exc:
        return got, exc
    return got, None


def test_openai_responses_without_fault(oai: openai.OpenAI) -> None:
    events, exc = responses_events(oai, None)
    assert exc is None
    assert [e.type for e in events] == [e["type"] for e in recorded_events(RESPONSES)]
    assert events[-1].response.output_text == "Server-Sent Events stream text over HTTP."


def test_openai_responses_status_and_drop(oai: openai.OpenAI) -> None:
    events, exc = responses_events(oai, "status=429")
    assert events == [] and type(exc) is openai.RateLimitError
    events, exc = responses_events(oai, "drop-after-events=5")
    assert len(events) == 5 and type(exc) is openai.APIConnectionError


def test_openai_responses_error_at(oai: openai.OpenAI) -> None:
    """Observed: the Responses ``error`` event does NOT raise in ``create(stream=True)``: the SDK
    yields it as an event of type ``error`` and the stream ends quietly. Only the ``.stream()``
    helper notices, when asked for the final response (RuntimeError)."""
    events, exc = responses_events(oai, "error-at=5")
    assert exc is None
    assert [e.type for e in events][-2:] == ["response.output_text.delta", "error"]
    assert events[-1].code == "server_error"
    with (
        oai.responses.stream(
            model="gpt-4.1-mini", input="Hi", extra_headers=headers_for(fault="error-at=5")
        ) as stream,
        pytest.raises(RuntimeError, match=r"response\.completed"),
    ):
        for _ in stream:
            pass
        stream.get_final_response()


def test_openai_responses_truncate_last(oai: openai.OpenAI) -> None:
    """The cut event is ``response.completed``: it is silently lost; the stream ends without
    error after ``response.output_item.done``."""
    events, exc = responses_events(oai, "truncate-last")
    assert exc is None
    assert [e.type for e in events] == [e["type"] for e in recorded_events(RESPONSES)][:-1]


# -- anthropic -----------------------------------------------------------------------------


def test_anthropic_without_fault(claude: anthropic.Anthropic) -> None:
    with claude.messages.stream(
        model="claude-sonnet-4-6", max_tokens=1024, messages=MESSAGES
    ) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text == "I'll check the current weather in Lisbon for you."
    assert final.stop_reason == "tool_use"
    assert final.usage.output_tokens == 71 and final.usage.input_tokens == 486
    tool = final.content[1]
    assert tool.type == "tool_use" and tool.name == "get_weather"
    assert tool.input == {"city": "Lisbon, Portugal", "unit": "celsius"}


@pytest.mark.parametrize(
    ("status", "error"),
    [
        (429, anthropic.RateLimitError),
        (500, anthropic.InternalServerError),
        (529, anthropic.OverloadedError),
    ],
)
def test_anthropic_status(
    claude: anthropic.Anthropic, status: int, error: type[anthropic.APIStatusError]
) -> None:
    events, exc = claude_events(claude, f"status={status}")
    assert events == [] and type(exc) is error
    assert exc.status_code == status
    assert isinstance(exc.body, dict) and exc.body["type"] == "error"
    if status == 529:
        assert isinstance(exc, anthropic.InternalServerError)
        assert exc.body["error"]["type"] == "overloaded_error"


def test_anthropic_drop_after_events(claude: anthropic.Anthropic) -> None:
    """Unlike openai, the anthropic SDK does NOT wrap a transport error mid-stream: httpx2's
    ReadError (the reset) reaches the caller as is, not as anthropic.APIConnectionError.
    The SDK skips ``ping``, so 4 events on the wire are 3 for the caller."""
    events, exc = claude_events(claude, "drop-after-events=4")
    assert events == ["message_start", "content_block_start", "content_block_delta"]
    assert type(exc) is httpx2.ReadError
    assert not isinstance(exc, anthropic.APIConnectionError)


def test_anthropic_stall(claude: anthropic.Anthropic) -> None:
    """A read timeout mid-stream is also raw: httpx2.ReadTimeout, not APITimeoutError."""
    t0 = time.monotonic()
    events, exc = claude_events(claude, "stall=1@3", timeout=0.2)
    assert events == ["message_start", "content_block_start"]
    assert type(exc) is httpx2.ReadTimeout
    assert time.monotonic() - t0 < 0.8
    events, exc = claude_events(claude, "stall=0.3@3", timeout=1.0)
    assert exc is None and events == recorded_anthropic_types()


def test_anthropic_error_at(claude: anthropic.Anthropic) -> None:
    """The in-band ``event: error`` with an ``overloaded_error`` raises a plain
    APIStatusError, not OverloadedError: the SDK picks the class from the HTTP status, which
    was 200. The error object is the body."""
    events, exc = claude_events(claude, "error-at=3")
    assert events == ["message_start", "content_block_start"]  # + a ping on the wire
    assert type(exc) is anthropic.APIStatusError
    assert exc.status_code == 200
    assert exc.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }
    with (
        pytest.raises(anthropic.APIStatusError),
        claude.messages.stream(
            model="claude-sonnet-4-6",
            max_tokens=1024,
            messages=MESSAGES,
            extra_headers=headers_for(fault="error-at=9"),
        ) as stream,
    ):
        stream.get_final_message()


def test_anthropic_truncate_last(claude: anthropic.Anthropic) -> None:
    """The cut event is ``message_stop``: it is silently lost and nothing raises. Even the
    ``messages.stream()`` accumulator returns a whole final message (stop_reason and usage
    came in ``message_delta``), so a missing message_stop is invisible to the caller."""
    events, exc = claude_events(claude, "truncate-last")
    assert exc is None
    assert events == recorded_anthropic_types()[:-1]
    assert events[-1] == "message_delta"
    with claude.messages.stream(
        model="claude-sonnet-4-6",
        max_tokens=1024,
        messages=MESSAGES,
        extra_headers=headers_for(fault="truncate-last"),
    ) as stream:
        final = stream.get_final_message()
    assert final.stop_reason == "tool_use"
    assert final.content[1].type == "tool_use"
