"""``record --transport websocket``: a Responses API WebSocket session, byte-exact and timed.

One TCP connection (TLS for ``https``/``wss``), the upgrade written and its answer read with
h11 (a head cap), then wsproto (sans-IO) over the raw socket: every byte the server sends
after the 101 goes into the recording as it was read, with its time, and wsproto's reading
of the same bytes says when a turn has ended (``response.completed``, ``response.failed``,
``response.incomplete`` or ``error``), so the next ``response.create`` goes out then (or
once the turn's deadline has passed). Each message the client sends is a ``sent`` line.

Masking cannot be a plain byte scrub here: ``[REDACTED]`` is not as long as what it
replaces, and a frame's header states its payload's length. So the reads are cut at frame
ends: a frame's bytes are written once the frame is whole (at the time of the read that
completed it; a frame's payload cannot be judged before), unchanged unless its payload
held a secret, and then re-framed around the masked payload, so the file still decodes.

Bounded as every reader: a head cap, a message cap (a frame, or a message's frames, past
it end the session), the byte cap and the deadline of ``record``, a stall timeout and a
per-turn deadline; nothing is buffered past one frame and one message.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias
from urllib.parse import urlsplit

import h11
from wsproto.connection import Connection, ConnectionState, ConnectionType
from wsproto.events import BytesMessage, CloseConnection, Ping, TextMessage
from wsproto.utilities import generate_accept_token

from sseconform.record import NODELAY, Refused, read_body, recording_writer, tls_context
from sseconform.recording.bounds import INTERRUPTED, BoundHit, Interrupted
from sseconform.recording.format import Close, RecordingWriter, Response
from sseconform.recording.redact import Redactor
from sseconform.wires.responses import TURN_ENDS

__all__ = [
    "MAX_HEAD",
    "MAX_MESSAGE",
    "TERMINAL",
    "NextTurn",
    "WsOutcome",
    "record_websocket",
    "turn_bodies",
    "ws_target",
]

#: The largest answer head read (h11's own default is 16 KiB; a gateway's can be longer).
MAX_HEAD = 64 * 1024
#: The largest server message kept (its frames together): the Responses API's largest
#: event (a ``response.completed`` with the whole output) is far below it.
MAX_MESSAGE = 16 * 1024 * 1024
#: Bytes read from the socket at once.
READ_SIZE = 64 * 1024
#: Seconds to wait for the server's Close (and the end of the TCP connection) after ours.
CLOSE_WAIT = 2.0
#: The events that end a turn. An ``error`` ends it when it carries the ``status`` Codex
#: CLI acts on; one without (the SSE stream's shapes) is followed by ``response.failed``
#: where OpenAI sends it, and Codex ignores it and reads on (measured): the recorder reads
#: on too, for :data:`ERROR_GRACE` seconds at most.
TERMINAL = TURN_ENDS
#: After an ``error`` event without a status, how long a ``response.failed`` may take.
ERROR_GRACE = 1.0
#: Fields a ``response.create`` does not take over WebSocket (each turn streams, in the
#: foreground): dropped from each ``-d`` body.
DROPPED = ("stream", "background")
#: The upgrade's own headers: the recorder writes them, a ``-H`` of the same name is dropped.
_OWN = frozenset(
    {"host", "connection", "upgrade", "sec-websocket-version", "sec-websocket-key"}
    | {"content-length", "content-type", "transfer-encoding", "accept-encoding"}
)

#: A turn whose body depends on the answer before it (``gate``'s next turn carries the tool
#: results of the calls the client got): called with the text messages the server sent in
#: the turn before, once that turn has ended; its body, or None to send no more turns.
NextTurn: TypeAlias = Callable[[list[str]], dict[str, Any] | None]


@dataclass
class WsOutcome:
    """What ``record --transport websocket`` recorded, and how it ended."""

    path: str
    complete: bool
    reason: str
    redacted: list[str]
    status: int | None = None  # the answer to the upgrade (101, or the refusal's)
    turns: int = 0  # response.create messages sent
    answered: int = 0  # turns that reached their terminal event
    messages: int = 0  # whole messages the server sent
    bytes: int = 0  # bytes the server sent after the head
    reads: int = 0
    elapsed: float = 0.0
    close: Close | None = None
    bound: str | None = None  # deadline, max-bytes, message, turn-deadline
    response_ids: list[str] = field(default_factory=list)  # each turn's, in order
    #: time.monotonic() when the connection was made: the recording's times count from it
    #: (``gate`` times each turn against its upstream's clock)
    started: float = 0.0

    @property
    def interrupted(self) -> bool:
        return self.reason.startswith("interrupted")

    @property
    def nothing_recorded(self) -> bool:
        """No answer to the upgrade (and nobody stopped it): nothing but the request."""
        return self.status is None and not self.interrupted

    @property
    def ok(self) -> bool:
        """Upgraded, and every turn ended with its terminal event."""
        return self.complete and self.status == 101 and self.answered == self.turns > 0


def ws_target(url: str) -> tuple[str, int, bool, str, str]:
    """Host, port, TLS, request target and ``Host`` header of an http(s) or ws(s) URL;
    :class:`Refused` for any other."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
        raise Refused(f"{url!r} is not an http(s) or ws(s) URL (--transport websocket)")
    tls = parts.scheme in ("https", "wss")
    try:
        port = parts.port or (443 if tls else 80)
    except ValueError as exc:
        raise Refused(f"{url!r}: {exc}") from None
    if not 0 < port < 65536:
        raise Refused(f"{url!r}: port {port} is not from 1 to 65535")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.hostname, port, tls, target, parts.netloc.rpartition("@")[2]


def turn_bodies(data: list[str]) -> list[dict[str, Any]]:
    """Each ``-d`` (JSON, ``@file`` or ``@-``) as a turn's ``response.create``: a JSON
    object, ``"type": "response.create"`` added when it has no type, ``stream`` and
    ``background`` dropped (the WebSocket mode takes neither)."""
    if not data:
        raise Refused("give each turn's response.create body with -d (repeatable)")
    if sum(d == "@-" for d in data) > 1:
        raise Refused("-d @- reads standard input once: give the other turns as files")
    out = []
    for n, item in enumerate(data, 1):
        raw = read_body(item)
        try:
            obj = json.loads(raw)
        except ValueError as exc:
            raise Refused(f"-d turn {n}: not JSON ({exc})") from None
        if not isinstance(obj, dict):
            raise Refused(f"-d turn {n}: a response.create is a JSON object")
        out.append(prepared(obj))
    return out


def prepared(body: dict[str, Any]) -> dict[str, Any]:
    """A turn's body as sent: ``"type": "response.create"`` unless it has a type, without
    ``stream`` or ``background``."""
    out = {"type": "response.create", **body}
    for k in DROPPED:
        out.pop(k, None)
    return out


def _own_headers(netloc: str, key: str) -> list[tuple[str, str]]:
    return [
        ("Host", netloc),
        ("Connection", "Upgrade"),
        ("Upgrade", "websocket"),
        ("Sec-WebSocket-Version", "13"),
        ("Sec-WebSocket-Key", key),
    ]


def record_websocket(
    url: str,
    turns: Sequence[dict[str, Any] | NextTurn],
    out: str,
    *,
    headers: list[tuple[str, str]] | None = None,
    chain: bool = False,
    force: bool = False,
    connect_timeout: float = 30.0,
    stall_timeout: float | None = 60.0,
    turn_timeout: float | None = None,
    deadline: float | None = None,
    max_bytes: int | None = None,
    max_message: int = MAX_MESSAGE,
    redactor: Redactor | None = None,
) -> WsOutcome:
    """Record a session of ``turns`` into ``out``; never raises for a network failure (see
    :attr:`WsOutcome.reason`). With ``chain``, each turn after the first names the one
    before's response id in ``previous_response_id`` (unless its body names one). A turn
    may be a :data:`NextTurn`, made once the turn before has ended."""
    redactor = redactor or Redactor()
    turns = [t if callable(t) else prepared(t) for t in turns]
    host, port, tls, target, netloc = ws_target(url)
    key = base64.b64encode(os.urandom(16)).decode()
    user = [(k, v) for k, v in headers or [] if k.lower() not in _OWN]
    sent_headers = _own_headers(netloc, key) + user
    stored = {
        "method": "GET",
        "url": redactor.url(url),
        "headers": [list(h) for h in _own_headers(netloc, key)]
        + redactor.header_list(user, "request"),
        "body": None,
    }
    # secrets by name (a NextTurn's body is scrubbed when it is made)
    shown = [t if callable(t) else redactor.body(t, f"sent[{n}]") for n, t in enumerate(turns)]
    writer = recording_writer(out, stored, redactor, force, "websocket")  # masked by _Frames
    s = _Session(writer, redactor, out, stall_timeout, turn_timeout, deadline, max_bytes)
    s.max_message = max_message
    try:
        s.sock = socket.create_connection((host, port), timeout=connect_timeout)
        s.sock.setsockopt(*NODELAY[0])
        if tls:
            s.sock = tls_context().wrap_socket(s.sock, server_hostname=host)
        s.t0 = s.outcome.started = time.monotonic()
        if s.upgrade(target, sent_headers, key):
            s.converse(turns, shown, chain)
    except TimeoutError:  # the connect, the TLS handshake, or a write the server never took
        if s.outcome.status is None:
            s.reason = f"could not connect within {connect_timeout:g} s"
        else:
            s.complete, s.reason = False, "the server stopped taking what was sent"
    except BoundHit as exc:
        s.complete, s.reason, s.outcome.bound = False, exc.message, exc.kind
    except (Interrupted, KeyboardInterrupt) as exc:
        s.complete, s.reason = False, exc.reason if isinstance(exc, Interrupted) else INTERRUPTED
    except OSError as exc:
        said = "could not connect" if s.outcome.status is None else "the connection failed"
        s.complete, s.reason = False, f"{said}: {exc.strerror or exc}"
    finally:
        s.end()
    return s.outcome


class _Frames:
    """Server frames out of reads: whole frames, each masked (and re-framed) when its
    payload held a secret; a frame's start is kept until the rest comes (one frame at
    most, never past the message cap)."""

    def __init__(self, redactor: Redactor, cap: int) -> None:
        self.redactor, self.cap = redactor, cap
        self.buf = b""

    def feed(self, data: bytes) -> bytes:
        self.buf += data
        out = bytearray()
        while (n := self._whole()) is not None:
            frame, self.buf = self.buf[:n], self.buf[n:]
            out += self._masked(frame)
        return bytes(out)

    def finish(self) -> bytes:
        """A frame cut short by the end of the connection: its bytes, scrubbed."""
        rest, self.buf = self.buf, b""
        return self.redactor.scrub_bytes(rest) if rest else b""

    def _whole(self) -> int | None:
        """The length of the whole frame at the buffer's start, or None while it is not."""
        b = self.buf
        if len(b) < 2:
            return None
        size, at = b[1] & 0x7F, 2
        if size == 126:
            if len(b) < 4:
                return None
            size, at = int.from_bytes(b[2:4], "big"), 4
        elif size == 127:
            if len(b) < 10:
                return None
            size, at = int.from_bytes(b[2:10], "big"), 10
        if size > self.cap:
            raise BoundHit("message", f"a frame of {size:,} bytes (past {self.cap:,})")
        at += 4 if b[1] & 0x80 else 0
        return at + size if len(b) >= at + size else None

    def _masked(self, frame: bytes) -> bytes:
        if frame[1] & 0x80:  # masked (a server must not): the payload is not readable text
            return frame
        head = 2 + {126: 2, 127: 8}.get(frame[1] & 0x7F, 0)
        payload = frame[head:]
        code = b""
        if frame[0] & 0x0F == 8:  # Close: a code, then the reason
            code, payload = payload[:2], payload[2:]
        clean = self.redactor.scrub_bytes(payload)
        if clean == payload:
            return frame
        if "response.frames" not in self.redactor.found:
            self.redactor.found.append("response.frames")
        body = code + clean
        n = len(body)
        size = bytes([n]) if n < 126 else (b"\x7e" + n.to_bytes(2, "big") if n < 65536 else
                                           b"\x7f" + n.to_bytes(8, "big"))  # fmt: skip
        return bytes([frame[0]]) + size + body


class _Session:
    """One recorded connection: its bounds, the writer, wsproto's reading of what came."""

    def __init__(
        self,
        writer: RecordingWriter,
        redactor: Redactor,
        path: str,
        stall: float | None,
        turn_timeout: float | None,
        deadline: float | None,
        max_bytes: int | None,
    ) -> None:
        self.writer, self.redactor = writer, redactor
        self.stall, self.turn_timeout, self.deadline = stall, turn_timeout, deadline
        self.max_bytes = max_bytes
        self.max_message = MAX_MESSAGE
        self.sock: socket.socket | None = None
        self.t0 = time.monotonic()
        self.outcome = WsOutcome(path, False, "", [])
        self.complete, self.reason = False, ""
        self.ws = Connection(ConnectionType.CLIENT)
        self.frames: _Frames | None = None
        self.parts: list[str | bytes] = []
        self.size = 0
        self.terminal = False  # the current turn's terminal event came
        #: an error event without a status came: the turn ends at this time unless a
        #: terminal event comes first (:data:`ERROR_GRACE`)
        self.grace: float | None = None
        self.turn_id: str | None = None  # the current turn's response id
        self.turn_messages = 0
        self.turn_end: float | None = None
        #: the current turn's text messages, for a NextTurn (kept only when one is coming)
        self.turn_texts: list[str] | None = None

    def now(self) -> float:
        return time.monotonic() - self.t0

    # -- reading, bounded

    def recv(self) -> bytes | None:
        """One read within every bound: the stall timeout, the deadline, the turn's; a
        :class:`BoundHit` or a stall ``TimeoutError`` when one passes first; None when an
        error's grace passed first (the turn is over, the connection is not)."""
        assert self.sock is not None
        now = time.monotonic()
        waits: list[tuple[float, str]] = []
        if self.stall is not None:
            waits.append((self.stall, "stall"))
        if self.deadline is not None:
            waits.append((self.t0 + self.deadline - now, "deadline"))
        if self.turn_end is not None:
            waits.append((self.turn_end - now, "turn"))
        if self.grace is not None:
            waits.append((self.grace - now, "grace"))
        wait: float | None = None
        which = ""
        if waits:
            wait, which = min(waits)
            if wait <= 0:
                if which != "grace":
                    raise self._bound(which)
                self._graced()
                return None
        self.sock.settimeout(wait)
        try:
            return self.sock.recv(READ_SIZE)
        except TimeoutError:
            if which != "grace":
                raise self._bound(which) from None
            self._graced()
            return None
        except ConnectionResetError:
            return b""

    def _graced(self) -> None:
        """No terminal event followed the turn's status-less error: the error ended it."""
        self.grace = None
        self._ended_turn()

    def _ended_turn(self) -> None:
        self.terminal = True
        self.turn_end = None
        self.outcome.answered += 1

    def _bound(self, which: str) -> BoundHit:
        if which == "deadline":
            return BoundHit("deadline", f"the session went on past its deadline of "
                            f"{self.deadline:g} s")  # fmt: skip
        if which == "turn":
            return BoundHit("turn-deadline", f"turn {self.outcome.turns}: no terminal event "
                            f"within {self.turn_timeout:g} s")  # fmt: skip
        return BoundHit("stall", f"stalled: no byte for {self.stall:g} s")

    def keep(self, data: bytes, t: float, *, frames: bool) -> None:
        """Bytes the server sent, into the recording (whole frames after a 101), within
        the byte cap."""
        o = self.outcome
        over = self.max_bytes is not None and o.bytes + len(data) > self.max_bytes
        if over and self.max_bytes is not None:
            data = data[: max(0, self.max_bytes - o.bytes)]
        o.bytes += len(data)
        o.reads += 1
        if frames and self.frames is not None:
            data = self.frames.feed(data)
        else:
            data = self.redactor.scrub_bytes(data)
        if data:
            self.writer.read(t, data)
        if over:
            raise BoundHit("max-bytes", f"the server sent more than {self.max_bytes:,} bytes")

    # -- the upgrade

    def upgrade(self, target: str, headers: list[tuple[str, str]], key: str) -> bool:
        """Write the upgrade and read its answer: True after a 101 with the right accept
        token; else the answer (a refusal, with its body) is recorded and False."""
        assert self.sock is not None
        conn = h11.Connection(h11.CLIENT, max_incomplete_event_size=MAX_HEAD)
        self.sock.sendall(conn.send(h11.Request(method="GET", target=target, headers=headers))
                          + (conn.send(h11.EndOfMessage()) or b""))  # fmt: skip
        while True:
            try:
                event = conn.next_event()
            except h11.RemoteProtocolError as exc:
                if self.outcome.status is not None:
                    self.reason = f"the server refused the upgrade: HTTP {self.outcome.status}"
                    self.reason += f" (its body cut short: {exc})"
                else:
                    self.reason = f"the answer to the upgrade is not HTTP/1.1 ({exc})"
                return False
            if event is h11.NEED_DATA:
                data = self.recv() or b""  # no grace before a turn: None never comes here
                if not data and self.outcome.status is None:
                    self.reason = "the server closed the connection without an answer"
                    return False
                conn.receive_data(data)
                continue
            if isinstance(event, h11.InformationalResponse) and event.status_code != 101:
                continue
            if isinstance(event, h11.InformationalResponse | h11.Response):
                self._head(event)
                if event.status_code == 101:
                    return self._accepted(event, key, conn.trailing_data[0])
                continue
            if isinstance(event, h11.Data):
                self.keep(bytes(event.data), self.now(), frames=False)
                continue
            # EndOfMessage, or the connection closed after the body
            self.complete = isinstance(event, h11.EndOfMessage)
            status = self.outcome.status
            self.reason = f"the server refused the upgrade: HTTP {status}"
            if not self.complete:
                self.reason += " (its body cut short)"
            return False

    def _head(self, event: h11.InformationalResponse | h11.Response) -> None:
        raw = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in event.headers.raw_items()]
        clean = self.redactor.header_list(raw, "response")
        version = "HTTP/" + event.http_version.decode("ascii", "replace")
        head = Response(event.status_code, event.reason.decode("latin-1"), version,
                        [(k, v) for k, v in clean])  # fmt: skip
        self.writer.response(head, t=self.now())
        self.outcome.status = event.status_code

    def _accepted(
        self, event: h11.InformationalResponse | h11.Response, key: str, ahead: bytes
    ) -> bool:
        got = dict((k.lower(), v) for k, v in event.headers).get(b"sec-websocket-accept")
        if got != generate_accept_token(key.encode("ascii")):
            self.reason = "a 101 without the right sec-websocket-accept: not a WebSocket"
            return False
        self.frames = _Frames(self.redactor, self.max_message)
        if ahead:  # frames that came in the read with the head
            self._take(ahead)
        return True

    # -- the session

    def converse(
        self,
        turns: Sequence[dict[str, Any] | NextTurn],
        shown: list[dict[str, Any] | NextTurn],
        chain: bool,
    ) -> None:
        """Each turn sent once the one before has ended; then our Close."""
        for n, (item, seen) in enumerate(zip(turns, shown, strict=True), 1):
            if self.ws.state is not ConnectionState.OPEN:
                return
            if callable(item):
                made = item(self.turn_texts or [])
                if made is None:
                    break
                item = prepared(made)
                seen = self.redactor.body(item, f"sent[{n - 1}]")
            assert not callable(seen)
            body, stored = dict(item), dict(seen)
            if chain and n > 1 and "previous_response_id" not in body:
                if self.turn_id is None:
                    self.reason = f"turn {n - 1} gave no response id for turn {n} to chain to"
                    self.complete = True
                    self.close(1000)
                    return
                body["previous_response_id"] = stored["previous_response_id"] = self.turn_id
            self.turn_texts = [] if n < len(turns) and callable(turns[n]) else None
            self.send_turn(body, stored)
            while not self.terminal:
                if not self.read_once():
                    return
        self.complete, self.reason = True, "all turns answered"
        self.close(1000)

    def send_turn(self, body: dict[str, Any], stored: dict[str, Any]) -> None:
        assert self.sock is not None
        self.outcome.turns += 1
        self.terminal, self.turn_id, self.turn_messages, self.grace = False, None, 0, None
        if self.turn_timeout is not None:
            self.turn_end = time.monotonic() + self.turn_timeout
        text = json.dumps(body, ensure_ascii=False)
        self.writer.sent(self.now(), "text", json.dumps(stored, ensure_ascii=False))
        self.sock.sendall(self.ws.send(TextMessage(text)))

    def read_once(self) -> bool:
        """One read, recorded and read by wsproto; False once the connection has ended."""
        data = self.recv()
        if data is None:  # a turn ended by its error, the connection open
            return True
        if not data:
            self._eof()
            return False
        self._take(data)
        return self.ws.state is ConnectionState.OPEN

    def _take(self, data: bytes) -> None:
        self.keep(data, self.now(), frames=True)
        self.ws.receive_data(data)
        for event in self.ws.events():
            if isinstance(event, TextMessage | BytesMessage):
                self._message(event)
            elif isinstance(event, Ping):
                self._send(event.response(), "pong", event.payload)
            elif isinstance(event, CloseConnection):
                self._closed(event)

    def _message(self, event: TextMessage | BytesMessage) -> None:
        self.parts.append(event.data if isinstance(event.data, str) else bytes(event.data))
        self.size += len(event.data)
        if self.size > self.max_message:
            raise BoundHit("message", f"a message past {self.max_message:,} bytes")
        if not event.message_finished:
            return
        parts, self.parts, self.size = self.parts, [], 0
        self.outcome.messages += 1
        self.turn_messages += 1
        if not isinstance(event, TextMessage):
            return
        text = "".join(p for p in parts if isinstance(p, str))
        if self.turn_texts is not None and not self.terminal:
            self.turn_texts.append(text)
        try:
            obj = json.loads(text)
        except ValueError:
            return
        if not isinstance(obj, dict):
            return
        response = obj.get("response")
        rid = response.get("id") if isinstance(response, dict) else None
        if isinstance(rid, str) and self.turn_id is None:
            self.turn_id = rid
            self.outcome.response_ids.append(rid)
        kind = obj.get("type")
        if kind == "error" and not isinstance(obj.get("status"), int) and not self.terminal:
            if self.grace is None:
                self.grace = time.monotonic() + ERROR_GRACE
        elif kind in TERMINAL and not self.terminal:
            self.grace = None
            self._ended_turn()

    def _send(self, event: Any, op: str, payload: bytes | bytearray) -> None:
        assert self.sock is not None
        self.writer.sent(self.now(), op, base64.b64encode(bytes(payload)).decode("ascii"))
        with contextlib.suppress(OSError):  # a server gone: what it sent is recorded
            self.sock.sendall(self.ws.send(event))

    def _closed(self, event: CloseConnection) -> None:
        """The server's Close (or wsproto's reading of bytes that break the protocol)."""
        assert self.sock is not None
        if self.ws.state is ConnectionState.OPEN:  # a protocol error: not a peer's Close
            self.reason = f"the server broke the protocol ({int(event.code)}): {event.reason}"
            self.outcome.close = Close("client", int(event.code), event.reason or "")
            with contextlib.suppress(OSError):
                self.sock.sendall(self.ws.send(CloseConnection(event.code, event.reason)))
            return
        if self.outcome.close is None:  # the server closed first
            self.outcome.close = Close("server", int(event.code), event.reason or "")
            where = (
                f"in turn {self.outcome.turns} (after {self.turn_messages} messages)"
                if not self.terminal and self.outcome.turns
                else "between turns"
            )
            self.complete = True
            self.reason = f"closed {int(event.code)} by the server {where}"
            if self.ws.state is ConnectionState.REMOTE_CLOSING:
                with contextlib.suppress(OSError):
                    self.sock.sendall(self.ws.send(event.response()))

    def _eof(self) -> None:
        if self.outcome.close is None:
            self.outcome.close = Close("server", None, "")
            self.complete = False
            self.reason = (
                f"the connection ended without a Close in turn {self.outcome.turns}"
                if not self.terminal
                else "the connection ended without a Close"
            )

    def close(self, code: int) -> None:
        """Our Close, and the server's back (or the end of the connection) within
        :data:`CLOSE_WAIT` s; what comes meanwhile is recorded."""
        assert self.sock is not None
        if self.ws.state is not ConnectionState.OPEN:
            return
        self.outcome.close = Close("client", code, "")
        self.sock.sendall(self.ws.send(CloseConnection(code)))
        self.turn_end, self.deadline = time.monotonic() + CLOSE_WAIT, None
        with contextlib.suppress(BoundHit, OSError):
            while not self._ended():
                data = self.recv()
                if not data:
                    break
                self._take(data)

    def _ended(self) -> bool:
        return self.ws.state is ConnectionState.CLOSED

    def end(self) -> None:
        """The recording's end line: how it ended, how the connection closed."""
        o = self.outcome
        if self.frames is not None:
            rest = self.frames.finish()
            if rest:
                self.writer.read(self.now(), rest)
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.close()
        o.elapsed = self.now()
        o.complete = self.complete
        o.reason = self.redactor.scrub(self.reason or "ended")
        o.redacted = list(self.redactor.found)
        close = None
        if o.close is not None:
            close = {"by": o.close.by, "code": o.close.code, "reason": o.close.reason}
        extra: dict[str, Any] = {"redacted": self.redactor.found, "turns": o.turns}
        if close is not None:
            extra["close"] = close
        self.writer.close(complete=o.complete, reason=o.reason, t=o.elapsed, **extra)
