"""The demo gateway's WebSocket mode: ``GET /v1/responses`` upgraded, each ``response.create``
bridged to the upstream the HTTP path would pick for that body.

What a gateway in front of Codex CLI does: the upgrade accepted (RFC 6455, no extension, no
subprotocol), each client message read as a ``response.create`` and sent upstream as a
streaming POST through the gateway's own ``/v1/responses`` path (:class:`Bridge`), so a
Responses upstream is passed through and any other dialect translated, with every bug of
that path; each event that comes back is sent on as one text message holding its JSON
object, as it arrives. The upstream is stateless, the client is not: each response's full
conversation (input and output items) is remembered on the connection, so a later
``previous_response_id`` with only new items is forwarded as the whole conversation; an id
the connection never issued is the nested ``error`` event, 400
``previous_response_not_found``. ``generate: false`` (Codex's prewarm) is answered here,
with no upstream call. An upstream's HTTP error is that ``error`` event with its status; a
failure mid-stream (an ``error`` event of the SSE shape, or a stream that ends before
``response.completed``) is an ``error`` event too, never a bare close.

Bounded as replay's WebSocket side: a message size (1009 past it), frames per message and
control frames between two messages (1008), an idle timeout between turns (1001), one
message waiting at most while a turn runs. A client's Close gets Close back.

Two threads per connection: the handler's reads frames (pings answered, Close answered,
messages queued), another answers the turns; every wsproto call and write under one lock.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import queue
import re
import selectors
import socket
import threading
import time
from typing import Any, Protocol

from wsproto.connection import Connection, ConnectionState, ConnectionType
from wsproto.events import BytesMessage, CloseConnection, Event, Ping, Pong, TextMessage

from sseconform.sse import SSEDecoder
from sseconform.websocket import mode as wsmode

__all__ = ["IDLE_TIMEOUT", "MAX_MESSAGE", "Bridge", "Upgraded", "bridged_headers", "refusal"]

#: The largest client message (bytes of its text), as replay's (a POST body's cap).
MAX_MESSAGE = 16 * 1024 * 1024
#: Frames one message may come in.
MAX_FRAMES = 1024
#: Control frames (pings, pongs) between two data messages: past it, a flood.
MAX_CONTROL = 1024
#: Seconds without a message between turns before the gateway closes (1001), as replay.
IDLE_TIMEOUT = 60.0
#: Seconds a write may wait on a client that does not read.
WRITE_TIMEOUT = 30.0
#: After the gateway's Close, how long it waits for the client's.
CLOSE_TIMEOUT = 5.0
#: How often the reader looks up from the socket (for the end of the session).
_POLL = 0.25
#: Bytes read from the socket at once (and of what came before the 101).
READ_SIZE = 64 * 1024
#: Bytes kept of an upstream's error body.
_MAX_ERROR = 64 * 1024
#: Events that end a turn.
_TERMINAL = frozenset({"response.completed", "response.failed", "response.incomplete", "error"})
#: Headers of the upgrade that are the socket's, not the turn's.
_HOP = ("connection", "upgrade", "sec-websocket-", "content-length", "transfer-encoding")
#: The WebSocket mode's beta token (Codex sends it on the upgrade, not on its POST).
_WS_BETA = re.compile(r"\s*responses_websockets=[^,]*,?")


class Bridge(Protocol):
    """The gateway, as a WebSocket turn asks it: its bugs, and one turn's POST body answered
    through its ``/v1/responses`` path onto a handler-shaped :class:`BridgedTurn`."""

    bugs: set[str]

    def ws_turn(self, h: Any, body: dict[str, Any]) -> None: ...


def refusal(bugs: set[str]) -> int | None:
    """The status ``ws-refuse:CODE`` answers the upgrade with, if that bug is on."""
    for bug in bugs:
        if bug.startswith("ws-refuse:"):
            return int(bug.split(":", 1)[1])
    return None


def bridged_headers(headers: Any) -> http.client.HTTPMessage:
    """The upgrade's headers as each turn's request carries them: without the socket's own
    (``Upgrade``, ``Sec-WebSocket-*``) and without the WebSocket beta token in
    ``OpenAI-Beta`` (an HTTP upstream is not asked for the WebSocket mode)."""
    out = http.client.HTTPMessage()
    for name, value in headers.items():
        low = name.lower()
        if low.startswith(_HOP):
            continue
        if low == "openai-beta":
            value = _WS_BETA.sub("", value).strip().strip(",").strip()
            if not value:
                continue
        out[name] = value
    return out


class _Gone(Exception):
    """The connection is closing: nothing more is sent on it."""


class Upgraded:
    """One upgraded connection: frames read in the caller's thread, turns answered in one of
    their own, the conversation of each response it sent kept for ``previous_response_id``."""

    def __init__(self, bridge: Bridge, sock: socket.socket, headers: Any, ahead: bytes) -> None:
        self.bridge, self.sock, self.ahead = bridge, sock, ahead
        self.bugs = bridge.bugs
        self.headers = bridged_headers(headers)
        self.ws = Connection(ConnectionType.SERVER)
        self.lock = threading.Lock()
        #: response id -> its whole conversation (input items, then output items)
        self.state: dict[str, list[Any]] = {}
        self.ending = ""
        self._inbox: queue.Queue[str | bytes | None] = queue.Queue(maxsize=1)
        self._done = threading.Event()
        self._busy = False
        self._parts: list[str | bytes] = []
        self._size = self._frames = self._control = 0

    def run(self) -> None:
        """Serve the connection until it ends (the client's Close, a bound, an idle timeout,
        the client gone)."""
        self.sock.settimeout(WRITE_TIMEOUT)
        answering = threading.Thread(target=self._answer_loop, daemon=True)
        answering.start()
        try:
            self._read_loop()
        finally:
            self._done.set()
            with contextlib.suppress(queue.Full):
                self._inbox.put_nowait(None)  # the answerer need not wait out its poll
            answering.join(WRITE_TIMEOUT)

    # -- reading

    def _read_loop(self) -> None:
        if self.ahead:  # sent before the 101 arrived: frames all the same
            self._feed(self.ahead)
        last = time.monotonic()
        closing_since: float | None = None
        with selectors.DefaultSelector() as sel:
            sel.register(self.sock, selectors.EVENT_READ)
            while not self._done.is_set() and self.ws.state is not ConnectionState.CLOSED:
                if self.ws.state is ConnectionState.LOCAL_CLOSING:
                    closing_since = closing_since or time.monotonic()
                    if time.monotonic() - closing_since > CLOSE_TIMEOUT:
                        self.ending += ", no Close came back"
                        return
                if not sel.select(_POLL):
                    if self._busy or closing_since is not None:
                        last = time.monotonic()
                    elif time.monotonic() - last > IDLE_TIMEOUT:
                        self.ending = f"idle for {IDLE_TIMEOUT:g} s"
                        self.close(1001, "idle")
                    continue
                try:
                    data = self.sock.recv(READ_SIZE)
                except OSError:
                    self.ending = self.ending or "client hung up"
                    return
                if not data:
                    self.ending = self.ending or "client left without a Close"
                    return
                last = time.monotonic()
                self._feed(data)

    def _feed(self, data: bytes) -> None:
        with self.lock:
            self.ws.receive_data(data)
            events = list(self.ws.events())
        for event in events:
            self._on(event)
            if self._done.is_set():
                return

    def _on(self, event: Event) -> None:
        if isinstance(event, TextMessage | BytesMessage):
            if self.ws.state is ConnectionState.OPEN:
                self._on_data(event)
        elif isinstance(event, Ping):
            if self._count_control():
                self._send(event.response())
        elif isinstance(event, Pong):
            self._count_control()
        elif isinstance(event, CloseConnection):
            if self.ws.state is ConnectionState.REMOTE_CLOSING:  # the client's Close: ours back
                self.ending = self.ending or f"closed {event.code} by the client"
                self._send(event.response())
            elif self.ws.state is ConnectionState.OPEN:  # wsproto's protocol error
                self._limit(event.code, event.reason or "protocol error")

    def _count_control(self) -> bool:
        self._control += 1
        if self._control > MAX_CONTROL:
            self._limit(1008, f"more than {MAX_CONTROL} control frames between two messages")
            return False
        return True

    def _on_data(self, event: TextMessage | BytesMessage) -> None:
        data = event.data if isinstance(event.data, str) else bytes(event.data)
        self._size += len(data.encode()) if isinstance(data, str) else len(data)
        self._parts.append(data)
        self._frames += event.frame_finished
        if self._size > MAX_MESSAGE:
            return self._limit(1009, f"a message over {MAX_MESSAGE:,} bytes")
        if self._frames > MAX_FRAMES:
            return self._limit(1008, f"a message in more than {MAX_FRAMES} frames")
        if not event.message_finished:
            return None
        parts, self._parts = self._parts, []
        self._size = self._frames = self._control = 0
        whole: str | bytes = (
            "".join(p for p in parts if isinstance(p, str))
            if isinstance(event, TextMessage)
            else b"".join(p for p in parts if isinstance(p, bytes))
        )
        while not self._done.is_set():  # one waiting at most: the rest stays in the kernel
            try:
                self._inbox.put(whole, timeout=_POLL)
                return None
            except queue.Full:
                continue
        return None

    def _limit(self, code: int, reason: str) -> None:
        """A bound passed (or the client's protocol error): closed with ``code``."""
        self._parts, self._size = [], 0
        self.ending = f"closed {code}: {reason}"
        self.close(code, reason)
        self._done.set()

    # -- writing

    def _send(self, event: Event) -> None:
        with self.lock:
            if self.ws.state in (ConnectionState.CLOSED, ConnectionState.LOCAL_CLOSING):
                return
            try:
                self.sock.sendall(self.ws.send(event))
            except OSError:
                self._done.set()

    def ping(self) -> None:
        """A keepalive: a Ping the client's library answers (the stream is quiet, not dead)."""
        self._send(Ping(b"keepalive"))

    def close(self, code: int, reason: str) -> None:
        """Send a Close (the connection then ends once the client answers it)."""
        if self.ws.state in (ConnectionState.OPEN, ConnectionState.REMOTE_CLOSING):
            self._send(CloseConnection(code, reason))

    def send_event(self, text: str, kind: str | None) -> None:
        """One Responses event, one text message (``ws-sse-framing``: SSE text inside it)."""
        if "ws-sse-framing" in self.bugs:
            text = (f"event: {kind}\n" if kind else "") + f"data: {text}\n\n"
        with self.lock:
            if self.ws.state is not ConnectionState.OPEN:
                raise _Gone
            self.sock.sendall(self.ws.send(TextMessage(text)))

    def error(self, status: int, body: bytes | dict[str, Any]) -> None:
        self.send_event(wsmode.error_text(status, body), "error")

    # -- answering

    def _answer_loop(self) -> None:
        while not self._done.is_set():
            try:
                message = self._inbox.get(timeout=_POLL)
            except queue.Empty:
                continue
            if message is None or self._done.is_set():
                return
            self._busy = True
            try:
                self._turn(message)
            except (_Gone, OSError):
                self._done.set()
            finally:
                self._busy = False

    def _turn(self, message: str | bytes) -> None:
        obj, why = wsmode.parse_create(message)
        if obj is None:
            err = {"type": "invalid_request_error", "code": None, "message": why, "param": None}
            return self.error(400, {"error": err})
        chained = self._conversation(obj)
        if chained is None:
            return None
        forwarded, conversation = chained
        if obj.get("generate") is False:  # the prewarm: answered here, nothing asked upstream
            rid, events = wsmode.prewarm_events(obj)
            for text in events:
                self.send_event(text, json.loads(text)["type"])
            self.state[rid] = conversation
            return None
        body = {k: v for k, v in obj.items() if k not in ("type", "generate")}
        body.pop("previous_response_id", None)  # the upstream is stateless: it gets it all
        body |= {"input": forwarded, "stream": True}
        turn = BridgedTurn(self)
        try:
            self.bridge.ws_turn(turn, body)
        except (_Gone, OSError):
            raise
        except Exception as exc:  # the upstream unreachable, or a body the bridge cannot read
            said = f"{type(exc).__name__}: {exc}"[:300]
            turn.fail(502, {"error": {"type": "server_error", "code": "upstream_error",
                                      "message": f"the gateway's upstream call failed: {said}",
                                      "param": None}})  # fmt: skip
        turn.end()
        if turn.close_connection or turn.stopped:  # die-at's reset, or ws-bare-close's close
            self._done.set()
        elif turn.rid is not None and turn.complete:
            self.state[turn.rid] = conversation + turn.output
        return None

    def _conversation(self, obj: dict[str, Any]) -> tuple[Any, list[Any]] | None:
        """What the upstream is sent as ``input``, and the conversation to remember: the
        named response's, then the new items (``ws-forget``: the new items alone). None: the
        id is unknown here, and the client has its error."""
        new = obj.get("input")
        items: list[Any] = (
            [{"type": "message", "role": "user", "content": new}]
            if isinstance(new, str)
            else list(new)
            if isinstance(new, list)
            else []
        )
        prev = obj.get("previous_response_id")
        if prev is None:
            return (new if new is not None else []), items
        if "ws-forget" in self.bugs:  # a gateway with no state of its own
            return items, items
        if not isinstance(prev, str) or prev not in self.state:
            shown = str(prev)[:100]
            err = {"type": "invalid_request_error", "code": "previous_response_not_found",
                   "message": f"Previous response with id '{shown}' not found.",
                   "param": "previous_response_id"}  # fmt: skip
            self.error(400, {"error": err})
            return None
        whole = self.state[prev] + items
        return whole, whole


class BridgedTurn:
    """One turn as the gateway's HTTP path sees it: a request handler whose ``wfile`` takes
    the SSE bytes that path writes and sends each event on as a message (an error status's
    body becomes the ``error`` event at the end), the upgrade's headers its own."""

    path = "/v1/responses"
    close_connection = False  # set by the gateway's reset (``die-at``)

    def __init__(self, session: Upgraded) -> None:
        self.session, self.bugs = session, session.bugs
        #: the HTTP path's keepalive on a quiet stream, and the upstream's, go on as a
        #: WebSocket Ping (``write``): a faithful bridge keeps a quiet turn alive too
        self.heartbeat = "drop-keepalive" not in self.bugs
        self.headers = session.headers
        self.connection = session.sock
        self.wfile: Any = self
        self.status: int | None = None
        self.body = bytearray()
        self.dec = SSEDecoder()
        self.rid: str | None = None
        self.output: list[Any] = []
        self.done_items: list[Any] = []
        self.terminal = self.complete = self.stopped = False

    # the handler's writing methods, as the HTTP path calls them

    def send_response(self, code: int, message: str | None = None) -> None:
        self.status = code

    def send_header(self, keyword: str, value: str) -> None:
        pass

    def end_headers(self) -> None:
        pass

    def flush(self) -> None:
        pass

    def write(self, data: bytes) -> int:
        if self.status is not None and self.status >= 400:
            self.body += data[: max(0, _MAX_ERROR - len(self.body))]
        else:
            if self.heartbeat and (data.startswith(b":") or b"\n:" in data):
                self.session.ping()  # an SSE comment: a keepalive
            for ev in self.dec.feed(data):
                self._event(ev.event, ev.data)
        return len(data)

    # the turn's messages

    def _event(self, name: str | None, data: str) -> None:
        if name == "ping" and self.heartbeat and not self.stopped:
            self.session.ping()  # Anthropic's keepalive event
            return
        if self.stopped or name == "ping" or not data.strip() or data.strip() == "[DONE]":
            return
        try:
            obj = json.loads(data)
        except ValueError:
            obj = None
        kind = obj.get("type") if isinstance(obj, dict) else None
        kind = kind if isinstance(kind, str) else None
        if isinstance(obj, dict) and kind == "error" and not isinstance(obj.get("error"), dict):
            # the SSE stream's flat error: the WebSocket mode nests it, with a status
            err = {k: obj.get(k) for k in ("code", "message", "param")}
            status = 429 if "rate_limit" in str(err.get("code")) else 500
            err["type"] = "rate_limit_error" if status == 429 else "server_error"
            data = wsmode.error_text(status, {"error": err})
        if kind in ("error", "response.failed") and "ws-bare-close" in self.bugs:
            return self._bare_close()
        if isinstance(obj, dict):
            self._note(kind, obj)
        self.session.send_event(data, kind or name)
        return None

    def _note(self, kind: str | None, obj: dict[str, Any]) -> None:
        """What the connection remembers of the response: its id, its output items."""
        response = obj.get("response")
        if isinstance(response, dict) and isinstance(response.get("id"), str):
            self.rid = response["id"]
        if kind == "response.output_item.done" and isinstance(obj.get("item"), dict):
            self.done_items.append(obj["item"])
        if kind in ("response.completed", "response.incomplete") and isinstance(response, dict):
            output = response.get("output")
            self.output = output if isinstance(output, list) and output else self.done_items
            self.complete = True
        self.terminal = self.terminal or kind in _TERMINAL

    def fail(self, status: int, body: bytes | dict[str, Any]) -> None:
        """A failed turn: the ``error`` event (``ws-bare-close``: Close 1011 instead)."""
        if self.stopped or self.terminal:
            return
        if "ws-bare-close" in self.bugs:
            return self._bare_close()
        self.terminal = True
        self.session.error(status, body)
        return None

    def end(self) -> None:
        """The HTTP path is done: an error status becomes its event; a stream that ended
        before its last event is a failure the client must hear of."""
        if self.close_connection:
            return
        if self.status is not None and self.status >= 400:
            self.fail(self.status, bytes(self.body))
        elif not self.terminal:
            message = "the upstream's stream ended before response.completed"
            err = {"type": "server_error", "code": "upstream_error", "message": message}
            self.fail(502, {"error": {**err, "param": None}})

    def _bare_close(self) -> None:
        self.stopped = True
        self.session.close(1011, "upstream failure")
