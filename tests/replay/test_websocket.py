"""replay's WebSocket mode (the Responses API on ``GET /v1/responses``), through the clients
that use it: openai-python's ``responses.connect()`` and a raw wsproto client that sees each
frame. Every server binds 127.0.0.1; speed 0 unless timing is the point."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from websockets.exceptions import ConnectionClosedError, InvalidStatus
from wsproto.connection import Connection, ConnectionType
from wsproto.events import (
    BytesMessage,
    CloseConnection,
    Event,
    Ping,
    Pong,
    TextMessage,
)
from wsproto.frame_protocol import CloseReason

from sseconform.replay import websocket
from sseconform.replay.plan import Loaded, load
from sseconform.replay.routing import FAULT_HEADER
from sseconform.replay.scenario import ReplayRule
from sseconform.replay.server import ReplayServer
from sseconform.sse import SSEDecoder
from tests.replay.conftest import HOST, RECORDINGS_DIR

#: openai-python 3.57 opens websockets' connection without its context manager, which
#: websockets 17.1 deprecated (openai's extra pins websockets<16; 17.4 works, as measured).
pytestmark = pytest.mark.filterwarnings(
    "ignore:connect\\(\\) must be used as a context manager:DeprecationWarning"
)

TEXT = "text-responses.jsonl"
CALL = "tool-call-responses.jsonl"
KEY = "sk-wstest-0123456789abcdef"


def recorded(name: str) -> list[dict[str, Any]]:
    """The recording's events, as the JSON objects its SSE ``data:`` lines hold."""
    rec = load(str(RECORDINGS_DIR / "responses" / name))
    dec = SSEDecoder()
    return [json.loads(e.data) for e in dec.feed(rec.body) + dec.finish() if e.data.strip()]


def text_of(events: list[dict[str, Any]]) -> str:
    return "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta")


def loaded(*names: str) -> list[Loaded]:
    return [load(str(RECORDINGS_DIR / "responses" / n)) for n in names]


@pytest.fixture
def server() -> Iterator[tuple[ReplayServer, list[str]]]:
    lines: list[str] = []
    srv = ReplayServer(loaded(TEXT), speed=0, log=lines.append, measure=True)
    with srv.running():
        yield srv, lines


def sdk(srv: ReplayServer) -> openai.OpenAI:
    return openai.OpenAI(api_key=KEY, base_url=f"{srv.url}/v1", max_retries=0)


def until_done(conn: Any) -> list[Any]:
    """Events up to the turn's end (``response.completed`` or ``error``)."""
    out = []
    for event in conn:
        out.append(event)
        if event.type in ("response.completed", "response.failed", "error"):
            break
    return out


# -- openai-python -------------------------------------------------------------------------------


def test_sdk_gets_the_recordings_events_and_chains(
    server: tuple[ReplayServer, list[str]],
) -> None:
    srv, lines = server
    want = recorded(TEXT)
    with sdk(srv).responses.connect() as conn:
        conn.response.create(model="gpt-5-mini", input="What is SSE?")
        got = until_done(conn)
        assert [e.type for e in got] == [e["type"] for e in want]
        dumped = [e.model_dump(mode="json", exclude_unset=True) for e in got]
        assert text_of(dumped) == text_of(want) != ""
        first = got[-1].response.id
        # turn 2 on the same socket: only the new input, chained to turn 1
        conn.response.create(model="gpt-5-mini", input="And again?", previous_response_id=first)
        again = until_done(conn)
        assert again[-1].type == "response.completed"
    time.sleep(0.1)
    turns = [line for line in lines if " WS /v1/responses " in line]
    assert len(turns) == 2 and all(f"-> {TEXT} as websocket 200" in t for t in turns)
    chained = [s for s in srv.served if s.method == "WS"][1]
    assert json.loads(chained.request)["previous_response_id"] == first
    upgrade = [line for line in lines if " GET /v1/responses " in line]
    assert len(upgrade) == 1 and " 101 " in upgrade[0] and "2 turns" in upgrade[0]
    assert KEY not in "\n".join(lines)


def test_sdk_unknown_previous_response_is_an_error_event(
    server: tuple[ReplayServer, list[str]],
) -> None:
    srv, _ = server
    with sdk(srv).responses.connect() as conn:
        conn.response.create(model="gpt-5-mini", input="hi", previous_response_id="resp_nope")
        (err,) = until_done(conn)
        assert err.type == "error" and err.status == 400
        assert err.error.code == "previous_response_not_found"
        assert err.error.message == "Previous response with id 'resp_nope' not found."
        # the connection is still usable
        conn.response.create(model="gpt-5-mini", input="hi")
        assert until_done(conn)[-1].type == "response.completed"


def test_sdk_previous_response_of_another_connection_is_unknown(
    server: tuple[ReplayServer, list[str]],
) -> None:
    """The state is the connection's: an id sent on one socket is not known on the next."""
    srv, _ = server
    with sdk(srv).responses.connect() as conn:
        conn.response.create(model="gpt-5-mini", input="hi")
        rid = until_done(conn)[-1].response.id
    with sdk(srv).responses.connect() as conn:
        conn.response.create(model="gpt-5-mini", input="hi", previous_response_id=rid)
        (err,) = until_done(conn)
        assert err.type == "error" and err.error.code == "previous_response_not_found"


def test_sdk_generate_false_is_created_then_completed_empty(
    server: tuple[ReplayServer, list[str]],
) -> None:
    srv, lines = server
    with sdk(srv).responses.connect() as conn:
        conn.send({"type": "response.create", "model": "gpt-test", "input": [], "generate": False})
        got = until_done(conn)
        assert [e.type for e in got] == ["response.created", "response.completed"]
        assert got[1].response.output == [] and got[0].response.id == got[1].response.id
        # a turn chained to the prewarm, as Codex sends it
        conn.response.create(
            model="gpt-5-mini", input="hi", previous_response_id=got[1].response.id
        )
        assert until_done(conn)[-1].type == "response.completed"
    time.sleep(0.1)
    assert any("prewarm (generate: false)" in line for line in lines)


def test_sdk_http_error_recording_is_a_nested_error_event(tmp_path: Path) -> None:
    body = {
        "error": {
            "message": "Rate limit reached",
            "type": "requests",
            "code": "rate_limit_exceeded",
        }
    }
    path = tmp_path / "limited-responses.jsonl"
    request: dict[str, Any] = {"method": "POST", "url": "https://api.openai.com/v1/responses"}
    request |= {"headers": [], "body": {"model": "gpt-5-mini", "stream": True, "input": "hi"}}
    head = {"format": "sseconform-recording", "version": 1, "created": "2026-01-01T00:00:00+00:00"}
    response: dict[str, Any] = {"status": 429, "reason": "Too Many Requests", "t": 0.01}
    response |= {"http_version": "HTTP/1.1", "headers": [["content-type", "application/json"]]}
    lines = [
        {**head, "request": request},
        {"response": response},
        {"t": 0.02, "text": json.dumps(body)},
        {"end": {"complete": True, "reason": "eof", "t": 0.02}},
    ]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))
    srv = ReplayServer([load(str(path))], speed=0)
    with srv.running(), sdk(srv).responses.connect() as conn:
        conn.response.create(model="gpt-5-mini", input="hi")
        (err,) = until_done(conn)
        assert err.type == "error" and err.status == 429
        assert err.error.code == "rate_limit_exceeded" and err.error.type == "requests"
        assert err.error.message == "Rate limit reached"
        conn.response.create(model="gpt-5-mini", input="hi")  # the connection is kept
        assert until_done(conn)[0].type == "error"


# -- a raw client: each frame seen -----------------------------------------------------------------


class Raw:
    """A WebSocket client on wsproto over a plain socket, so a test sees every frame."""

    def __init__(self, port: int, path: str = "/v1/responses", headers: str = "") -> None:
        self.sock = socket.create_connection((HOST, port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            f"GET {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            f"Authorization: Bearer {KEY}\r\n{headers}\r\n".encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            got = self.sock.recv(65536)
            if not got:
                break
            head += got
        self.head, _, rest = head.partition(b"\r\n\r\n")
        self.status = int(self.head.split(b" ", 2)[1]) if self.head else 0
        self.ws = Connection(ConnectionType.CLIENT)
        if rest and self.status == 101:
            self.ws.receive_data(rest)
        self.pending: list[Event] = []

    def send(self, event: Event) -> None:
        self.sock.sendall(self.ws.send(event))

    def create(self, **fields: Any) -> None:
        self.send(
            TextMessage(json.dumps({"type": "response.create", "model": "gpt-5-mini", **fields}))
        )

    def next(self) -> Event:
        """The next frame's event (a message piece, a ping, a close); a CloseConnection
        with 1006 when the TCP connection ends without one."""
        while not self.pending:
            data = self.sock.recv(65536)
            self.ws.receive_data(data or None)
            self.pending.extend(self.ws.events())
        return self.pending.pop(0)

    def messages(self, until: str = "response.completed") -> list[str]:
        """Whole text messages up to one whose type is ``until`` (or ``error``)."""
        out, parts = [], []
        while True:
            event = self.next()
            assert isinstance(event, TextMessage), event
            parts.append(event.data)
            if event.message_finished:
                out.append("".join(parts))
                parts = []
                if json.loads(out[-1])["type"] in (until, "error"):
                    return out

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def raw_server() -> Iterator[tuple[ReplayServer, list[str]]]:
    lines: list[str] = []
    srv = ReplayServer(loaded(TEXT, CALL), speed=0, log=lines.append)
    with srv.running():
        yield srv, lines


def test_each_event_is_one_text_message_of_one_json_object(
    raw_server: tuple[ReplayServer, list[str]],
) -> None:
    srv, _ = raw_server
    c = Raw(srv.port)
    assert c.status == 101
    c.create(input="hi", stream=True)  # Codex sends stream: true; it is accepted
    frames = []
    while True:
        event = c.next()
        assert isinstance(event, TextMessage)
        frames.append(event)
        if json.loads(event.data)["type"] == "response.completed":
            break
    assert all(f.frame_finished and f.message_finished for f in frames)  # one frame each
    objs = [json.loads(f.data) for f in frames]
    assert objs in (recorded(TEXT), recorded(CALL))  # routed by rotation among the two
    c.close()


def test_ping_is_answered_with_pong_and_close_with_close(
    raw_server: tuple[ReplayServer, list[str]],
) -> None:
    srv, lines = raw_server
    c = Raw(srv.port)
    c.send(Ping(b"are you there"))
    pong = c.next()
    assert isinstance(pong, Pong) and pong.payload == b"are you there"
    c.send(CloseConnection(1000, "bye"))
    close = c.next()
    assert isinstance(close, CloseConnection) and close.code == 1000
    assert c.sock.recv(1) == b""  # then the server ends the TCP connection
    c.close()
    time.sleep(0.1)
    assert any("closed 1000 by the client" in line for line in lines)


def test_oversize_message_closes_1009(
    raw_server: tuple[ReplayServer, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    srv, _ = raw_server
    monkeypatch.setattr(websocket, "MAX_MESSAGE", 64 * 1024)
    c = Raw(srv.port)
    with contextlib.suppress(OSError):  # the server may close while the rest goes out
        c.create(input="x" * (256 * 1024))
    event = c.next()
    assert isinstance(event, CloseConnection) and event.code == CloseReason.MESSAGE_TOO_BIG
    c.close()


def test_oversize_over_many_frames_closes_1009_without_holding_it(
    raw_server: tuple[ReplayServer, list[str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    srv, _ = raw_server
    monkeypatch.setattr(websocket, "MAX_MESSAGE", 64 * 1024)
    c = Raw(srv.port)
    piece = "x" * 16 * 1024
    for _ in range(5):  # 80 KiB in five continuation frames, never finished
        c.send(TextMessage(piece, message_finished=False))
    event = c.next()
    assert isinstance(event, CloseConnection) and event.code == 1009
    c.close()


def test_non_json_and_wrong_type_get_error_events_and_the_connection_goes_on(
    raw_server: tuple[ReplayServer, list[str]],
) -> None:
    srv, _ = raw_server
    c = Raw(srv.port)
    nested = '{"type": "response.create", "input": ' + "[" * 100_000 + "]" * 100_000 + "}"
    for bad in ("not json {", "[1, 2]", json.dumps({"type": "response.cancel"}), nested):
        c.send(TextMessage(bad))
        (msg,) = c.messages()
        obj = json.loads(msg)
        assert obj["type"] == "error" and obj["status"] == 400
        assert obj["error"]["type"] == "invalid_request_error"
    c.send(BytesMessage(b'{"type": "response.create"}'))
    assert json.loads(c.messages()[0])["type"] == "error"
    c.create(input="hi")
    assert json.loads(c.messages()[-1])["type"] == "response.completed"
    c.close()


def test_frame_flood_closes_and_the_server_serves_the_next(
    raw_server: tuple[ReplayServer, list[str]],
) -> None:
    srv, _ = raw_server
    c = Raw(srv.port)
    with contextlib.suppress(OSError):  # the server may close while the rest goes out
        for _ in range(websocket.MAX_FRAMES + 10):
            c.send(TextMessage("x", message_finished=False))
    event = c.next()
    assert isinstance(event, CloseConnection) and event.code == 1008
    c.close()
    flood = Raw(srv.port)
    with contextlib.suppress(OSError):
        for _ in range(websocket.MAX_CONTROL + 10):
            flood.send(Pong(b""))
    event = flood.next()
    assert isinstance(event, CloseConnection) and event.code == 1008
    flood.close()
    after = Raw(srv.port)
    after.create(input="hi")
    assert json.loads(after.messages()[-1])["type"] == "response.completed"
    after.close()


def test_garbage_bytes_close_1002_and_the_server_serves_the_next(
    raw_server: tuple[ReplayServer, list[str]],
) -> None:
    srv, lines = raw_server
    c = Raw(srv.port)
    c.sock.sendall(b"\x8f\x80" + os.urandom(64))  # opcode 0xF: reserved, never valid
    data = c.sock.recv(1024)
    assert data[0] == 0x88  # a Close frame (FIN, opcode 8)
    assert int.from_bytes(data[2:4], "big") == CloseReason.PROTOCOL_ERROR
    c.close()
    unmasked = Raw(srv.port)  # a client frame must be masked (RFC 6455 5.1)
    unmasked.sock.sendall(b"\x81\x02hi")
    assert unmasked.sock.recv(1024)[:1] == b"\x88"
    unmasked.close()
    after = Raw(srv.port)
    after.create(input="hi")
    assert json.loads(after.messages()[-1])["type"] == "response.completed"
    after.close()
    time.sleep(0.1)
    assert any("protocol error (1002)" in line for line in lines)


def test_client_leaving_without_close_is_not_an_error(
    raw_server: tuple[ReplayServer, list[str]],
) -> None:
    """Codex ends its connection with no Close frame: logged as such, nothing raised."""
    srv, lines = raw_server
    c = Raw(srv.port)
    c.create(input="hi")
    c.messages()
    c.close()
    time.sleep(0.2)
    assert any("client left without a Close" in line for line in lines)
    after = Raw(srv.port)
    assert after.status == 101
    after.close()


@pytest.mark.parametrize(
    ("path", "status"),
    [("/v1/other", 404), ("/v1/chat/completions", 405)],
)
def test_upgrade_elsewhere_is_answered_as_before(
    raw_server: tuple[ReplayServer, list[str]], path: str, status: int
) -> None:
    srv, _ = raw_server
    c = Raw(srv.port, path)
    assert c.status == status
    c.close()


def test_bad_version_is_426(raw_server: tuple[ReplayServer, list[str]]) -> None:
    srv, _ = raw_server
    sock = socket.create_connection((HOST, srv.port), timeout=10)
    sock.sendall(
        b"GET /v1/responses HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 8\r\n\r\n"
    )
    head = sock.recv(65536)
    assert head.startswith(b"HTTP/1.1 426 ") and b"sec-websocket-version: 13" in head
    sock.close()


# -- faults ------------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [404, 405, 426])
def test_ws_refuse_is_a_refused_handshake(status: int) -> None:
    srv = ReplayServer(loaded(TEXT), speed=0, fault=f"ws-refuse={status}")
    with srv.running():
        with pytest.raises(InvalidStatus) as caught, sdk(srv).responses.connect():
            pass
        assert caught.value.response.status_code == status
        if status == 426:
            assert caught.value.response.headers["upgrade"] == "websocket"
        # POST still served: the client's fallback works
        resp = sdk(srv).responses.create(model="gpt-5-mini", input="hi")
        assert resp.output_text


def test_ws_refuse_by_header_and_by_a_rule_for_the_first_upgrade_only(
    raw_server: tuple[ReplayServer, list[str]],
) -> None:
    srv, lines = raw_server
    refused = Raw(srv.port, headers=f"{FAULT_HEADER}: ws-refuse=405\r\n")
    assert refused.status == 405
    refused.close()
    srv.rules = [ReplayRule(TEXT, path="/v1/responses", fault="ws-refuse=426", times=1)]
    first, second = Raw(srv.port), Raw(srv.port)
    assert (first.status, second.status) == (426, 101)
    first.close()
    second.close()
    time.sleep(0.1)
    assert any("faults=ws-refuse=405 fired=ws-refuse" in line for line in lines)


def test_ws_close_after_n_events_reaches_the_sdk_as_1011() -> None:
    srv = ReplayServer(loaded(TEXT), speed=0, fault="ws-close=1011@3")
    with srv.running(), sdk(srv).responses.connect() as conn:
        conn.response.create(model="gpt-5-mini", input="hi")
        got = []
        with pytest.raises(ConnectionClosedError) as caught:
            for event in conn:
                got.append(event.type)
        assert caught.value.rcvd is not None and caught.value.rcvd.code == 1011
        assert got == [e["type"] for e in recorded(TEXT)[:3]]


def test_ws_fragment_splits_each_message_over_continuation_frames() -> None:
    srv = ReplayServer(loaded(TEXT), speed=0, fault="ws-fragment=100")
    with srv.running():
        c = Raw(srv.port)
        c.create(input="hi")
        pieces: list[TextMessage] = []
        while True:
            event = c.next()
            assert isinstance(event, TextMessage)
            pieces.append(event)
            if event.message_finished and '"response.completed"' in "".join(
                p.data for p in pieces[-200:]
            ):
                break
        assert any(not p.message_finished for p in pieces)  # continuation frames came
        assert all(len(p.data) <= 100 for p in pieces)
        joined, parts = [], []
        for p in pieces:
            parts.append(p.data)
            if p.message_finished:
                joined.append(json.loads("".join(parts)))
                parts = []
        assert joined == recorded(TEXT)
        c.close()


def test_ws_ping_comes_before_the_answer_and_the_sdk_copes() -> None:
    srv = ReplayServer(loaded(TEXT), speed=0, fault="ws-ping")
    with srv.running():
        c = Raw(srv.port)
        c.create(input="hi")
        first = c.next()
        assert isinstance(first, Ping) and first.payload == websocket.PING
        c.send(first.response())
        assert json.loads(c.messages()[-1])["type"] == "response.completed"
        c.close()
        with sdk(srv).responses.connect() as conn:
            conn.response.create(model="gpt-5-mini", input="hi")
            assert until_done(conn)[-1].type == "response.completed"


def test_status_fault_is_an_error_event_and_the_connection_stays() -> None:
    srv = ReplayServer(loaded(TEXT), speed=0, rules=[
        ReplayRule(TEXT, path="responses", fault="status=429", times=1)
    ])  # fmt: skip
    with srv.running(), sdk(srv).responses.connect() as conn:
        conn.response.create(model="gpt-5-mini", input="hi")
        (err,) = until_done(conn)
        assert err.type == "error" and err.status == 429 and err.error.code == "rate_limit_exceeded"
        conn.response.create(model="gpt-5-mini", input="hi")
        assert until_done(conn)[-1].type == "response.completed"


def test_events_leave_at_their_recorded_times() -> None:
    srv = ReplayServer(loaded(TEXT), speed=1.0)
    rec = load(str(RECORDINGS_DIR / "responses" / TEXT))
    last = websocket.recorded_messages(rec)[-1].t
    with srv.running():
        c = Raw(srv.port)
        start = time.monotonic()
        c.create(input="hi")
        c.messages()
        took = time.monotonic() - start
        c.close()
    assert last - 0.05 <= took <= last + 0.5


def test_faults_parse_and_refuse_bad_values() -> None:
    from sseconform.replay.faults import parse_faults

    f = parse_faults("ws-refuse=426,ws-close=1011@3,ws-fragment,ws-ping")
    assert (f.ws_refuse, f.ws_close, f.ws_fragment, f.ws_ping) == (426, (1011, 3), 16, True)
    assert f and f.websocket
    for bad in ("ws-close=1006@1", "ws-refuse=200", "ws-fragment=0", "ws-ping=1", "ws-close=x"):
        with pytest.raises(ValueError):
            parse_faults(bad)
