"""A request's body is parsed as JSON once per request, however many readers ask (routing,
the history check, the gate's measure), and only when one asks: what a body that is not a
JSON object means to each reader is what it meant when each parsed the body itself."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import orjson
import pytest

from sseconform.replay.faults import parse_faults
from sseconform.replay.history import Returned, check_history, returned_of
from sseconform.replay.routing import (
    MAX_PARSED,
    RequestBody,
    Router,
    model_of,
    streams,
    tools_of,
)
from sseconform.wires.base import Issued
from tests.replay.conftest import LOADED, TEXT, client, serving

CHAT = "/v1/chat/completions"
#: A chat turn with a history (a call and its tool answer) and a tool: every reader reads it.
TURN: dict[str, Any] = {
    "model": "gpt-4o-mini",
    "stream": True,
    "tools": [{"type": "function", "function": {"name": "get_weather"}}],
    "messages": [
        {"role": "user", "content": "Weather in Paris?"},
        {"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_weather", "arguments": "{}"}}
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
    ],
}  # fmt: skip
HISTORY = orjson.dumps(TURN)


@pytest.fixture
def loads_of(monkeypatch: pytest.MonkeyPatch) -> Callable[[bytes], int]:
    """How many times ``orjson.loads`` was given a body (every caller looks it up on the
    module, so the count sees them all; the server's thread too)."""
    given: list[object] = []
    real = orjson.loads

    def counting(data: bytes | bytearray | memoryview | str) -> Any:
        given.append(data)
        return real(data)

    monkeypatch.setattr(orjson, "loads", counting)
    return lambda body: sum(1 for d in given if d == body)


@pytest.mark.parametrize(
    ("raw", "obj", "fails"),
    [
        (b'{"model": "m"}', {"model": "m"}, False),
        (b"[1, 2]", None, False),
        (b'"text"', None, False),
        (b"null", None, False),
        (b"{", None, True),
        (b"", None, True),
        (b'\xff{"model": "m"}', None, True),
        (b"[" * 2000 + b"]" * 2000, None, True),  # past orjson's nesting limit: an error
    ],
)
def test_a_body_is_a_json_object_or_none_and_why(
    raw: bytes, obj: dict[str, Any] | None, fails: bool
) -> None:
    body = RequestBody(raw)
    assert body.raw == raw and body.obj == obj
    assert (body.error is not None) == fails


NOTHING = Returned(frozenset(), 0)


@pytest.mark.parametrize(
    ("raw", "returned"),
    [(b"", NOTHING), (b"{", NOTHING), (b'["tool", "tool_calls"]', None), (b'{"tool"', None)],
)
def test_every_reader_takes_a_body_that_is_no_object_as_before(
    raw: bytes, returned: Returned | None
) -> None:
    """A body that is not a JSON object is streamed, has no model and no tools, and has no
    history to refuse; what it brought back is nothing when it holds none of the keys that
    would (not read), else not known (read, and not an object)."""
    body = RequestBody(raw)
    assert streams(CHAT, body) is True
    assert model_of(body) is None and tools_of(body) is None
    assert check_history("openai", body, Issued()) is None
    assert returned_of(body) == returned


def test_every_reader_of_one_request_shares_one_parse(loads_of: Callable[[bytes], int]) -> None:
    body = RequestBody(HISTORY)
    assert loads_of(HISTORY) == 0  # not before a reader asks
    router = Router({TEXT: LOADED[TEXT]}, parse_faults(None), 0.0, [], False)
    assert router.choose(CHAT, {}, body)[0] is LOADED[TEXT]
    assert check_history("openai", body, Issued()) is None
    assert streams(CHAT, body) is True
    assert tools_of(body) == ["get_weather"] and model_of(body) == "gpt-4o-mini"
    returned = returned_of(body)
    assert returned is not None and returned.results == 1
    assert loads_of(HISTORY) == 1


def test_the_server_parses_a_request_body_once(loads_of: Callable[[bytes], int]) -> None:
    """Measured, as the gate runs it: routed by model, its history checked, stream or not,
    its tools and what it brought back; each used to parse the body again (five times)."""
    with serving([TEXT], measure=True) as server, client() as http:
        r = http.post(server.url + CHAT, content=HISTORY)
        deadline = time.monotonic() + 5
        while not server.served and time.monotonic() < deadline:
            time.sleep(0.01)  # the request is logged once its answer is written
    assert r.status_code == 200
    [served] = server.served
    assert served.recording == TEXT and served.framing == "sse"
    assert served.tools == ["get_weather"]
    assert served.returned is not None and served.returned.results == 1
    assert loads_of(HISTORY) == 1


def test_a_large_body_is_never_parsed(loads_of: Callable[[bytes], int]) -> None:
    """Past MAX_PARSED routing reads a body by a bounded scan, and the history readers read
    no more than routing parses (a 16 MB array of empty objects is half a gigabyte as Python
    objects): a large body is never parsed, with or without a history."""
    pad = "x" * MAX_PARSED
    plain = orjson.dumps({"model": "gpt-4o-mini", "stream": True, "pad": pad})
    body = RequestBody(plain)
    assert streams(CHAT, body) is True and model_of(body) == "gpt-4o-mini"
    assert tools_of(body) is None
    assert check_history("openai", body, Issued()) is None
    assert returned_of(body) == NOTHING
    assert loads_of(plain) == 0
    turn = orjson.dumps({**TURN, "pad": pad})
    body = RequestBody(turn)
    assert model_of(body) == "gpt-4o-mini" and tools_of(body) is None
    assert check_history("openai", body, Issued()) is None
    assert returned_of(body) is None  # not read: unknown, not "nothing came back"
    assert loads_of(turn) == 0
