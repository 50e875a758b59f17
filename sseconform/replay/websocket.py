"""The Responses API's WebSocket mode, as ``replay`` serves it on ``GET /v1/responses``.

One connection carries many turns: each client text message ``{"type": "response.create",
...}`` is answered as a POST with the same fields would be (the server routes it, as it routes
a POST), the recording's events sent one JSON text message each, at their recorded times.
The connection remembers the ids of the responses it sent, so a later turn may name one in
``previous_response_id`` and send only its new input items (Codex CLI does); the state dies
with the connection, as the provider's does.

wsproto (sans-IO, by h11's authors) reads and writes the frames; this module moves its bytes,
and holds the bounds every reader in replay has: a message size (1009 past it), a frame
count per message and a message count per connection (1008), control frames between two
messages (1008: a ping flood), an idle timeout, and one message waiting at most (the next
stays in the kernel until the current turn is answered). A protocol error closes with
wsproto's code (1002, or 1007 for text that is not UTF-8); JSON that is not a
``response.create`` gets an ``error`` event and the connection goes on.

The pure half (the handshake's checks, a recording's messages, a turn's plan) is testable
without a socket; :class:`Session` is the I/O.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wsproto.connection import Connection, ConnectionState, ConnectionType
from wsproto.events import (
    BytesMessage,
    CloseConnection,
    Event,
    Ping,
    Pong,
    TextMessage,
)

from sseconform import providers
from sseconform.replay.faults import Faults
from sseconform.replay.http11 import MAX_BODY, RequestHead, response_head
from sseconform.replay.plan import Loaded, read_index
from sseconform.replay.served import Served
from sseconform.replay.wire import IDLE_TIMEOUT, Input, drain, flushed, reset, sleep_until
from sseconform.sse import SSEDecoder
from sseconform.websocket import mode as wsmode
from sseconform.websocket.mode import error_text, parse_create, wants_websocket

__all__ = [
    "CLOSE_TIMEOUT",
    "MAX_CONTROL",
    "MAX_FRAMES",
    "MAX_MESSAGE",
    "MAX_MESSAGES",
    "Session",
    "WsMessage",
    "WsTurn",
    "accept_head",
    "error_text",
    "error_turn",
    "handshake_problem",
    "parse_create",
    "prewarm_turn",
    "recorded_messages",
    "turn_of",
    "wants_websocket",
]

#: The largest client message (bytes of its text): a POST body's cap, as it carries one.
MAX_MESSAGE = MAX_BODY
#: Frames one message may come in (continuation frames after the first).
MAX_FRAMES = 1024
#: Messages one connection may send (an agent's 20+ turns fit many times over).
MAX_MESSAGES = 10_000
#: Control frames (pings, pongs) between two data messages: past it, a flood.
MAX_CONTROL = 1024
#: Bytes read from the socket at once: what one read can add to a message in progress.
READ_SIZE = 64 * 1024
#: After the server's Close, how long it waits for the client's before it ends the TCP.
CLOSE_TIMEOUT = 5.0
#: The payload of the server's own Ping (the ``ws-ping`` fault).
PING = b"sseconform"
#: Events that carry the whole response, whose ``response.id`` a later turn may name.
_RESPONSE_EVENTS = frozenset(
    {"response.created", "response.in_progress", "response.completed"}
    | {"response.failed", "response.incomplete"}
)


# -- the handshake (pure) -----------------------------------------------------------------------


def handshake_problem(req: RequestHead) -> tuple[int, str, list[tuple[str, str]]] | None:
    """Why an upgrade cannot be accepted (RFC 6455 4.2.1): :func:`wsmode.handshake_problem`."""
    return wsmode.handshake_problem(req.method, req.version, req.headers)


def accept_head(req: RequestHead) -> bytes:
    """The 101 answer to a valid upgrade (no subprotocol, no extension: the clients measured
    work without permessage-deflate)."""
    headers = [
        ("upgrade", "websocket"),
        ("connection", "Upgrade"),
        ("sec-websocket-accept", wsmode.accept_token(req.headers["sec-websocket-key"])),
    ]
    return response_head(101, "Switching Protocols", headers)


# -- what a turn sends (pure) -------------------------------------------------------------------


@dataclass(frozen=True)
class WsMessage:
    """One text message: when it leaves (seconds after the turn began, scaled), its text,
    and the response id it carries (for ``previous_response_id``), if any."""

    t: float
    text: str
    response_id: str | None = None


@dataclass
class WsTurn:
    """What one ``response.create`` gets: its messages and the faults that break it."""

    messages: list[WsMessage]
    status: int = 200  # the recording's (or the error event's) status, for the log
    #: a Close frame with this code after message N: (code, N)
    close: tuple[int, int] | None = None
    #: the TCP connection reset after message N (``drop-after-events``)
    drop_after: int | None = None
    fragment: int | None = None  # characters per frame (``ws-fragment``)
    ping: bool = False
    #: message index -> the fault it makes take effect when sent ("status", "error")
    marks: dict[int, str] = field(default_factory=dict)
    #: the index of the message the stall delays, if it delays one
    stall_at: int | None = None


def _response_id(obj: Any) -> str | None:
    if not isinstance(obj, dict) or obj.get("type") not in _RESPONSE_EVENTS:
        return None
    response = obj.get("response")
    rid = response.get("id") if isinstance(response, dict) else None
    return rid if isinstance(rid, str) else None


def recorded_messages(rec: Loaded) -> list[WsMessage]:
    """A recording's SSE events as WebSocket messages: each event's data, leaving when the
    recorded read that completed it came (seconds from the request, unscaled)."""
    starts, times = read_index(rec)
    dec = SSEDecoder()
    out: list[WsMessage] = []
    i = 0
    for ev in dec.feed(rec.body) + dec.finish():
        data = ev.data.strip()
        if not data or data == "[DONE]":
            continue
        while i + 1 < len(starts) and starts[i + 1] <= ev.end - 1:
            i += 1
        t = times[i]
        try:
            rid = _response_id(json.loads(data))
        except ValueError:
            rid = None
        out.append(WsMessage(t, ev.data, rid))
    return out


def error_turn(status: int, kind: str, message: str, code: str | None = None) -> WsTurn:
    """An ``error`` event alone (a refused turn): the connection stays open."""
    err = {"type": kind, "code": code, "message": message, "param": None}
    return WsTurn([WsMessage(0.0, error_text(status, {"error": err}))], status)


def prewarm_turn(obj: dict[str, Any]) -> WsTurn:
    """``generate: false`` (Codex's prewarm): :func:`wsmode.prewarm_events` as a turn."""
    rid, events = wsmode.prewarm_events(obj)
    return WsTurn([WsMessage(0.0, text, rid) for text in events])


def turn_of(rec: Loaded, faults: Faults, speed: float) -> WsTurn:
    """What a turn answered by ``rec`` sends: its events at their times (``speed`` 0: at
    once), or its HTTP error as an ``error`` event; then the faults: ``status`` (an error
    event in place of the stream), ``stall``, ``error-at``, ``drop-after-events`` and
    WebSocket's own. ``drop-after-bytes`` and ``truncate-last`` cut SSE bytes, and have no
    meaning here: they never fire."""
    scale = 0.0 if speed == 0 else 1.0 / speed
    if faults.status is not None:
        body = providers.error_body(providers.RESPONSES, faults.status)
        turn = WsTurn([WsMessage(0.0, error_text(faults.status, body))], faults.status)
        turn.marks[0] = "status"
        return _with_ws(turn, faults)
    if not 200 <= rec.status < 300:
        turn = WsTurn([WsMessage(rec.t_head * scale, error_text(rec.status, rec.body))], rec.status)
        return _with_ws(turn, faults)
    messages = [WsMessage(m.t * scale, m.text, m.response_id) for m in recorded_messages(rec)]
    turn = _with_ws(WsTurn(messages, rec.status), faults)
    if faults.error_at is not None and faults.error_at < len(messages):
        n = faults.error_at
        t = messages[n - 1].t if n else 0.0
        body = providers.error_body(providers.RESPONSES, 500)
        turn.messages = [*messages[:n], WsMessage(t, error_text(500, body))]
        turn.marks[n] = "error"
    if faults.stall is not None and faults.stall[0] > 0 and faults.stall[1] < len(turn.messages):
        delay, after = faults.stall
        turn.stall_at = after
        turn.messages = [
            WsMessage(m.t + delay, m.text, m.response_id) if i >= after else m
            for i, m in enumerate(turn.messages)
        ]
    if faults.drop_after_events is not None and faults.drop_after_events < len(turn.messages):
        turn.drop_after = faults.drop_after_events
    return turn


def _with_ws(turn: WsTurn, faults: Faults) -> WsTurn:
    """``turn`` with WebSocket's own faults (the refusal is the upgrade's, not a turn's)."""
    turn.close, turn.fragment, turn.ping = faults.ws_close, faults.ws_fragment, faults.ws_ping
    return turn


# -- the connection (I/O) -----------------------------------------------------------------------

#: The server's routing of one ``response.create``: (its object, the response ids this
#: connection sent) -> the turn, and its Served (logged once the turn ends)
Route = Callable[[dict[str, Any], frozenset[str]], tuple[WsTurn, Served]]


class Session:
    """One upgraded connection: a reader (frames in, pings answered, complete messages
    queued one at a time) and an answerer (each message's turn, at its times)."""

    def __init__(
        self,
        conn: Input,
        writer: asyncio.StreamWriter,
        client: str,
        path: str,
        route: Route,
        log: Callable[[Served], None],
    ) -> None:
        self.conn, self.writer, self.client, self.path = conn, writer, client, path
        self.route, self.log = route, log
        self.ws = Connection(ConnectionType.SERVER)
        self.ids: set[str] = set()  # the response ids sent here: previous_response_id's state
        self.sent = 0  # bytes written since the upgrade
        self.turns = 0
        self.ending = ""
        self._inbox: asyncio.Queue[str | bytes] = asyncio.Queue(maxsize=1)
        self._parts: list[str | bytes] = []
        self._size = 0
        self._frames = 0
        self._messages = 0
        self._control = 0
        self._busy = False
        self._finished = False
        self._lock = asyncio.Lock()

    async def run(self) -> None:
        """Serve the connection until it ends; ``ending`` says how."""
        reading = asyncio.ensure_future(self._read_loop())
        answering = asyncio.ensure_future(self._answer_loop())
        try:
            done, _ = await asyncio.wait({reading, answering}, return_when="FIRST_COMPLETED")
        finally:
            for task in (reading, answering):
                task.cancel()
            await asyncio.gather(reading, answering, return_exceptions=True)
        for task in done:
            exc = task.exception()
            if isinstance(exc, TimeoutError):
                self.ending = self.ending or "the client stopped reading"
            elif isinstance(exc, ConnectionError):
                self.ending = self.ending or "client hung up"
            elif exc is not None:
                raise exc

    # -- reading

    async def _read_loop(self) -> None:
        if self.conn.ahead:  # sent before the 101 arrived: frames all the same
            data, self.conn.ahead = self.conn.ahead, b""
            await self._feed(data)
        while not self._finished and self.ws.state is not ConnectionState.CLOSED:
            closing = self.ws.state is ConnectionState.LOCAL_CLOSING
            try:
                async with asyncio.timeout(CLOSE_TIMEOUT if closing else IDLE_TIMEOUT):
                    data = await self.conn.reader.read(READ_SIZE)
            except TimeoutError:
                if closing:
                    self.ending += ", no Close came back"
                    return
                if not self._busy:
                    self.ending = f"idle for {IDLE_TIMEOUT} s"
                    await self._close(1001, "idle")
                continue
            if not data:
                if not self.ending:
                    self.ending = "client left without a Close"
                return
            await self._feed(data)

    async def _feed(self, data: bytes) -> None:
        self.ws.receive_data(data)
        for event in self.ws.events():
            await self._on(event)
            if self._finished:
                return

    async def _on(self, event: Event) -> None:
        if isinstance(event, TextMessage | BytesMessage):
            if self.ws.state is ConnectionState.OPEN:
                await self._on_data(event)
        elif isinstance(event, Ping):
            if self._count_control():
                await self._send(event.response())
        elif isinstance(event, Pong):
            self._count_control()
        elif isinstance(event, CloseConnection):
            await self._on_close(event)

    def _count_control(self) -> bool:
        self._control += 1
        if self._control > MAX_CONTROL:
            self._fail(1008, f"more than {MAX_CONTROL} control frames between two messages")
            return False
        return True

    async def _on_data(self, event: TextMessage | BytesMessage) -> None:
        data = event.data if isinstance(event.data, str) else bytes(event.data)
        self._size += len(data.encode()) if isinstance(data, str) else len(data)
        self._parts.append(data)
        self._frames += event.frame_finished
        if self._size > MAX_MESSAGE:
            return await self._limit(1009, f"a message over {MAX_MESSAGE:,} bytes")
        if self._frames > MAX_FRAMES:
            return await self._limit(1008, f"a message in more than {MAX_FRAMES} frames")
        if not event.message_finished:
            return None
        whole: str | bytes = (
            "".join(p for p in self._parts if isinstance(p, str))
            if isinstance(event, TextMessage)
            else b"".join(p for p in self._parts if isinstance(p, bytes))
        )
        self._parts, self._size, self._frames, self._control = [], 0, 0, 0
        self._messages += 1
        if self._messages > MAX_MESSAGES:
            return await self._limit(1008, f"more than {MAX_MESSAGES} messages")
        await self._inbox.put(whole)  # one waiting at most: the rest stays in the kernel
        return None

    async def _limit(self, code: int, reason: str) -> None:
        """A bound passed: the message is dropped and the connection closed with ``code``."""
        self._parts, self._size = [], 0
        self.ending = f"closed {code}: {reason}"
        await self._close(code, reason)
        self._finished = True

    async def _on_close(self, event: CloseConnection) -> None:
        if self.ws.state is ConnectionState.OPEN:  # wsproto's ParseFailed: not a peer's Close
            self.ending = f"protocol error ({event.code}): {event.reason}"
            await self._close(event.code, event.reason or None)
            self._finished = True
        elif self.ws.state is ConnectionState.REMOTE_CLOSING:
            self.ending = self.ending or f"closed {event.code} by the client"
            await self._send(event.response())
        # CLOSED: the client answered our Close; the loop ends

    def _fail(self, code: int, reason: str) -> None:
        """Close from a synchronous point: the frame is written now, the loop then ends."""
        self.ending = f"closed {code}: {reason}"
        if self.ws.state is ConnectionState.OPEN:
            data = self.ws.send(CloseConnection(code, reason))
            self.writer.write(data)
            self.sent += len(data)
        self._finished = True

    # -- writing

    async def _send(self, event: Event) -> int:
        """Write one event's frames (whole: a pong never lands inside another frame)."""
        async with self._lock:
            data = self.ws.send(event)
            self.writer.write(data)
            self.sent += len(data)
            await drain(self.writer)
        return len(data)

    async def _close(self, code: int, reason: str | None = None) -> None:
        if self.ws.state in (ConnectionState.OPEN, ConnectionState.REMOTE_CLOSING):
            await self._send(CloseConnection(code, reason))

    async def _send_text(self, text: str, fragment: int | None) -> int:
        if not fragment or len(text) <= fragment:
            return await self._send(TextMessage(text))
        async with self._lock:  # the frames of one message together (RFC 6455 5.4)
            n = 0
            for i in range(0, len(text), fragment):
                last = i + fragment >= len(text)
                data = self.ws.send(TextMessage(text[i : i + fragment], message_finished=last))
                self.writer.write(data)
                n += len(data)
            self.sent += n
            await drain(self.writer)
        return n

    # -- answering

    async def _answer_loop(self) -> None:
        while True:
            message = await self._inbox.get()
            self._busy = True
            try:
                await self._turn(message)
            finally:
                self._busy = False
            if self._finished:
                return

    async def _turn(self, message: str | bytes) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        obj, why = parse_create(message)
        if obj is None:
            turn = error_turn(400, "invalid_request_error", why, "invalid_request_error")
            served = Served(self.client, "WS", self.path, None, 400, "", framing="websocket")
            served.ending = f"refused: {why}"
        else:
            turn, served = self.route(obj, frozenset(self.ids))
        self.turns += 1
        served.started = start
        try:
            await self._play(turn, served, start, loop)
        except ConnectionError:
            served.ending = "client hung up"
            raise
        except TimeoutError:
            served.ending = "client stopped reading"
            raise
        finally:
            served.seconds = loop.time() - start
            served.ending = served.ending or "stopped"
            self.log(served)

    async def _play(
        self, turn: WsTurn, served: Served, start: float, loop: asyncio.AbstractEventLoop
    ) -> None:
        if turn.ping:
            await self._send(Ping(PING))
            served.fire("ws-ping", loop.time() - start)
        n = len(turn.messages)
        for i, m in enumerate(turn.messages):
            if turn.close is not None and turn.close[1] == i:
                return await self._fault_close(turn.close[0], served, start, loop, i)
            if turn.drop_after == i:
                await flushed(self.writer)
                served.fire("drop", loop.time() - start)
                served.ending = f"dropped after {i} events"
                self._finished = True
                reset(self.writer)
                return None
            if turn.stall_at == i:
                served.fire("stall", loop.time() - start)
            await sleep_until(loop, start + m.t)
            if self.ws.state is not ConnectionState.OPEN:
                served.ending = f"stopped after {i} events: the connection is closing"
                return None
            served.sent += await self._send_text(m.text, turn.fragment)
            if m.response_id is not None:
                self.ids.add(m.response_id)
            if i in turn.marks:
                served.fire(turn.marks[i], loop.time() - start)
        if turn.fragment and n:
            served.fire("ws-fragment", loop.time() - start)
        if turn.close is not None:  # after the last event: the close still comes
            return await self._fault_close(turn.close[0], served, start, loop, n)
        served.ending = served.ending or "complete"
        return None

    async def _fault_close(
        self, code: int, served: Served, start: float, loop: asyncio.AbstractEventLoop, i: int
    ) -> None:
        await self._close(code, "sseconform fault: ws-close")
        served.fire("ws-close", loop.time() - start)
        served.ending = f"closed {code} after {i} events"
        self.ending = f"closed {code} by the server (ws-close)"
