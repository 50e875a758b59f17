"""The demo gateway's WebSocket mode (``GET /v1/responses`` upgraded), through openai-python's
``responses.connect()`` and websockets' own client (which shows each message and the close),
against replay as its upstream: faithful, then each of its WebSocket bugs seen. Every server
binds 127.0.0.1; replay at speed 0 unless timing is the point."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import openai
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import ClientConnection, connect

from sseconform.demo import websocket
from sseconform.demo.gateway import Gateway
from sseconform.replay.plan import load
from sseconform.replay.server import ReplayServer
from sseconform.sse import SSEDecoder
from tests.conftest import ROOT

#: openai-python 3.57 opens websockets' connection without its context manager, which
#: websockets 17 deprecated (the same filter as replay's WebSocket tests).
pytestmark = pytest.mark.filterwarnings(
    "ignore:connect\\(\\) must be used as a context manager:DeprecationWarning"
)

KEY = "sk-demows-0123456789abcdef"
#: each upstream dialect: the model the gateway routes to it, and the recording replay serves
UPSTREAMS = {
    "responses": ("sseconform-responses", "responses/text-responses.jsonl"),
    "anthropic": ("sseconform-anthropic", "anthropic/text-anthropic.jsonl"),
    "openai": ("sseconform-openai", "chat/text-usage.jsonl"),
}
RESPONSES = "sseconform-responses"


@contextmanager
def demo(
    bugs: tuple[str, ...] = (), fault: str | None = None, speed: float = 0
) -> Iterator[tuple[Gateway, ReplayServer]]:
    """The demo gateway with ``bugs`` in front of replay serving one recording per dialect."""
    recordings = [load(str(ROOT / "recordings" / rec)) for _, rec in UPSTREAMS.values()]
    srv = ReplayServer(recordings, speed=speed, fault=fault, measure=True)
    with srv.running(), Gateway(srv.url, set(bugs)).running() as gw:
        yield gw, srv


def sdk(gw: Gateway) -> openai.OpenAI:
    return openai.OpenAI(api_key=KEY, base_url=f"{gw.url}/v1", max_retries=0)


def until_done(conn: Any) -> list[Any]:
    """The SDK's events up to the turn's end."""
    out = []
    for event in conn:
        out.append(event)
        if event.type in ("response.completed", "response.failed", "error"):
            return out
    return out


def raw(gw: Gateway) -> ClientConnection:
    """websockets' client on the gateway (what each message holds, how the socket closes)."""
    url = gw.url.replace("http://", "ws://") + "/v1/responses"
    return connect(url, additional_headers={"authorization": f"Bearer {KEY}"}, compression=None)


def create(ws: ClientConnection, **fields: Any) -> None:
    ws.send(json.dumps({"type": "response.create", "model": RESPONSES, **fields}))


def messages(ws: ClientConnection, timeout: float = 10) -> list[str]:
    """Messages up to the turn's end (a ``response.completed`` or an ``error``), as text."""
    out: list[str] = []
    while True:
        text = str(ws.recv(timeout=timeout))
        out.append(text)
        if json.loads(text).get("type") in ("response.completed", "response.failed", "error"):
            return out


def over_http(gw: Gateway, model: str, text: str) -> list[dict[str, Any]]:
    """The same request's events as the gateway's HTTP path streams them."""
    body = {"model": model, "input": text, "stream": True}
    resp = httpx.post(f"{gw.url}/v1/responses", json=body, timeout=30)
    dec = SSEDecoder()
    return [json.loads(e.data) for e in dec.feed(resp.content) + dec.finish() if e.data.strip()]


def texts(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")


def forwarded(srv: ReplayServer) -> list[dict[str, Any]]:
    """The bodies the gateway sent upstream, in order."""
    return [json.loads(s.request) for s in srv.served if s.method == "POST"]


# -- faithful --------------------------------------------------------------------------------


@pytest.mark.parametrize("dialect", list(UPSTREAMS))
def test_a_turn_is_the_http_paths_events_one_message_each(dialect: str) -> None:
    """Passed through (Responses) or translated (the others) exactly as the HTTP path
    streams it: the same events in the same order, each message one JSON object."""
    model = UPSTREAMS[dialect][0]
    with demo() as (gw, _):
        want = over_http(gw, model, "What is SSE?")
        with sdk(gw).responses.connect() as conn:
            conn.response.create(model=model, input="What is SSE?")
            got = [e.model_dump(mode="json", exclude_unset=True) for e in until_done(conn)]
        with raw(gw) as ws:
            create(ws, model=model, input="What is SSE?")
            each = [json.loads(m) for m in messages(ws)]
    assert [e["type"] for e in got] == [e["type"] for e in want] == [e["type"] for e in each]
    assert got[-1]["type"] == "response.completed"
    assert texts(got) == texts(want) == texts(each) != ""


@pytest.mark.parametrize(
    ("bugs", "whole"), [((), True), (("ws-forget",), False)], ids=["faithful", "ws-forget"]
)
@pytest.mark.parametrize("dialect", list(UPSTREAMS))
def test_a_chained_turn_reaches_the_upstream_whole(
    dialect: str, bugs: tuple[str, ...], whole: bool
) -> None:
    """Turn 2 sends only its new item and ``previous_response_id``: the stateless upstream
    gets turn 1's question, its answer and the new question (``ws-forget``: the new one
    alone)."""
    model = UPSTREAMS[dialect][0]
    with demo(bugs) as (gw, srv), sdk(gw).responses.connect() as conn:
        conn.response.create(model=model, input="first question")
        one = until_done(conn)
        answer = texts([e.model_dump(mode="json") for e in one])
        conn.response.create(
            model=model, input="second question", previous_response_id=one[-1].response.id
        )
        two = until_done(conn)
        sent = forwarded(srv)
    assert two[-1].type == "response.completed"
    assert len(sent) == 2 and "previous_response_id" not in sent[1]
    second = json.dumps(sent[1])
    assert "second question" in second
    if whole:
        first, said = second.index("first question"), second.index(json.dumps(answer[:20])[1:-1])
        assert first < said < second.index("second question")
    else:
        assert "first question" not in second and answer[:20] not in second


def test_generate_false_is_answered_at_once_and_chains() -> None:
    """Codex's prewarm: ``response.created`` then ``response.completed``, empty, nothing
    asked upstream; the turn chained to it brings the prewarm's input along."""
    with demo() as (gw, srv), sdk(gw).responses.connect() as conn:
        conn.response.create(model=RESPONSES, input="you are terse", generate=False)
        warm = until_done(conn)
        assert forwarded(srv) == []
        conn.response.create(
            model=RESPONSES, input="say hi", previous_response_id=warm[-1].response.id
        )
        turn = until_done(conn)
        sent = forwarded(srv)
    assert [e.type for e in warm] == ["response.created", "response.completed"]
    assert warm[-1].response.output == [] and warm[0].response.id == warm[-1].response.id
    assert turn[-1].type == "response.completed"
    contents = [item["content"] for item in sent[0]["input"]]
    assert contents == ["you are terse", "say hi"]


def test_an_unknown_previous_response_is_an_error_and_the_socket_stays() -> None:
    with demo() as (gw, srv), sdk(gw).responses.connect() as conn:
        conn.response.create(model=RESPONSES, input="hi", previous_response_id="resp_nope")
        (error,) = until_done(conn)
        conn.response.create(model=RESPONSES, input="hi")
        after = until_done(conn)
        sent = forwarded(srv)
    assert (error.type, error.status) == ("error", 400)
    assert error.error.code == "previous_response_not_found"
    assert "resp_nope" in error.error.message
    assert after[-1].type == "response.completed" and len(sent) == 1


@pytest.mark.parametrize(
    ("fault", "status"),
    [("status=429", 429), ("status=500", 500), ("error-at=3", 500), ("drop-after-events=3", 502)],
)
@pytest.mark.parametrize("bugs", [(), ("ws-bare-close",)], ids=["faithful", "ws-bare-close"])
def test_an_upstream_failure_is_an_error_event(
    fault: str, status: int, bugs: tuple[str, ...]
) -> None:
    """Before the stream (an HTTP status) or in it (an error event, a cut): the nested
    ``error`` event with a status, the socket open for the next turn; ``ws-bare-close``:
    Close 1011 and no error event."""
    with demo(bugs, fault=fault) as (gw, _), raw(gw) as ws:
        create(ws, input="hi")
        got: list[dict[str, Any]] = []
        closed: int | None = None
        try:
            while not got or got[-1]["type"] != "error":
                got.append(json.loads(ws.recv(timeout=10)))
        except ConnectionClosed as exc:
            closed = exc.rcvd.code if exc.rcvd else None
    errors = [e for e in got if e["type"] == "error"]
    if bugs:
        assert (closed, errors) == (1011, [])
    else:
        assert closed is None
        assert [(e["status"], isinstance(e["error"], dict)) for e in errors] == [(status, True)]
        assert errors[0]["error"]["message"]


def test_sse_framing_inside_a_message() -> None:
    with demo(("ws-sse-framing",)) as (gw, _), raw(gw) as ws:
        create(ws, input="hi")
        first = str(ws.recv(timeout=10))
    assert first.startswith("event: response.created\ndata: {") and first.endswith("}\n\n")


@pytest.mark.parametrize("bugs", [(), ("buffer",)], ids=["faithful", "buffer"])
def test_messages_are_sent_as_they_arrive(bugs: tuple[str, ...]) -> None:
    """Replay pauses 1 s after its third event: a faithful gateway has sent three messages
    by then; ``buffer`` holds every one until the end."""
    with demo(bugs, fault="stall=1.0@3") as (gw, _), raw(gw) as ws:
        start = time.monotonic()
        create(ws, input="hi")
        first = ws.recv(timeout=10)
        at = time.monotonic() - start
        rest = messages(ws)
    assert json.loads(first)["type"] == "response.created" and len(rest) > 3
    assert (at > 0.9) == ("buffer" in bugs), at


@pytest.mark.parametrize("code", [405, 426, 501])
def test_ws_refuse_answers_the_upgrade_with_its_status(code: int) -> None:
    with demo((f"ws-refuse:{code}",)) as (gw, _):
        with pytest.raises(InvalidStatus) as refused, sdk(gw).responses.connect(max_retries=1):
            pass
        chat = httpx.post(
            f"{gw.url}/v1/responses", json={"model": RESPONSES, "input": "hi", "stream": True}
        )
    assert refused.value.response.status_code == code
    assert chat.status_code == 200  # the HTTP path is unchanged


def test_a_bad_upgrade_is_refused_and_other_gets_stay_501() -> None:
    with demo() as (gw, _):
        old = httpx.get(
            f"{gw.url}/v1/responses",
            headers={"upgrade": "websocket", "connection": "Upgrade", "sec-websocket-key": "x"},
        )
        plain = httpx.get(f"{gw.url}/v1/responses")
    assert old.status_code == 426 and old.headers["sec-websocket-version"] == "13"
    assert plain.status_code == 501


def test_bounds_and_close(monkeypatch: pytest.MonkeyPatch) -> None:
    """A message past the cap: 1009; a socket idle past the timeout: 1001; a bad message:
    an error event, the socket open; the client's Close: Close back."""
    monkeypatch.setattr(websocket, "MAX_MESSAGE", 1000)
    monkeypatch.setattr(websocket, "IDLE_TIMEOUT", 0.5)
    with demo() as (gw, _):
        with raw(gw) as ws:
            ws.send("x" * 2000)
            with pytest.raises(ConnectionClosed) as big:
                ws.recv(timeout=5)
        with raw(gw) as ws, pytest.raises(ConnectionClosed) as idle:
            ws.recv(timeout=5)
        with raw(gw) as ws:
            ws.send("not json")
            bad = json.loads(ws.recv(timeout=5))
            create(ws, input="hi")
            assert json.loads(messages(ws)[-1])["type"] == "response.completed"
            ws.close()
            rcvd = ws.protocol.close_rcvd
            code = rcvd.code if rcvd else None
    assert big.value.rcvd is not None and big.value.rcvd.code == 1009
    assert idle.value.rcvd is not None and idle.value.rcvd.code == 1001
    assert (bad["status"], bad["error"]["message"]) == (400, "The message is not valid JSON.")
    assert code == 1000
