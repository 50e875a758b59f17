"""The server's side of a WebSocket connection read back as messages: what ``check``,
``gate`` and ``replay`` read of a version-2 recording (:mod:`sseconform.recording.session`).

The server's bytes are frames, as they came; this reader parses them itself (RFC 6455 5.2)
rather than through wsproto, because the rules need what a protocol library hides: where in
the server's bytes each message began (a finding's offset, the recording line it is on),
how many frames it took, a reserved bit or a masked server frame. It reads incrementally
(:class:`ServerFrames`: ``feed`` and ``finish``), holding one frame header and one message's
payload at most (:data:`MAX_MESSAGE`), so a session of any length reads in bounded memory.
permessage-deflate (RFC 7692) is inflated when the 101 agreed to it.

Each item carries the time of the read that completed it.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass
from typing import Any

import orjson

__all__ = [
    "CLOSE_CODES",
    "MAX_MESSAGE",
    "Broken",
    "Closed",
    "Item",
    "Message",
    "ServerFrames",
    "deflate_agreed",
    "sse_event",
]

#: The largest message read whole (its frames' payloads together, inflated): past it the
#: session stops being read (a :class:`Broken`). The Responses API's largest event (a
#: ``response.completed`` with the whole output) is far below it.
MAX_MESSAGE = 16 * 1024 * 1024
#: Opcodes (RFC 6455 5.2).
_CONT, _TEXT, _BINARY, _CLOSE, _PING, _PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
_OPS = {_TEXT: "text", _BINARY: "binary", _PING: "ping", _PONG: "pong"}
#: Close codes an endpoint may send (RFC 6455 7.4.1; 1005, 1006 and 1015 are never sent),
#: with their names; 3000-4999 are the registered and private ranges.
CLOSE_CODES = {
    1000: "normal closure",
    1001: "going away",
    1002: "protocol error",
    1003: "unsupported data",
    1007: "invalid payload data",
    1008: "policy violation",
    1009: "message too big",
    1010: "mandatory extension",
    1011: "internal error",
    1012: "service restart",
    1013: "try again later",
    1014: "bad gateway",
}


@dataclass(frozen=True, slots=True)
class Message:
    """One message of the session, either way. ``number`` counts every message (not control
    frames) from 1 in the order they were read or sent; ``offset`` is where the server's
    message's first frame starts in the server's bytes (-1 for the client's); ``line`` the
    recording line of that frame's read (or of the ``sent`` line); ``frames`` how many frames
    it came in. A control frame (ping, pong) is a Message too, with ``number`` 0."""

    number: int
    t: float
    by: str
    op: str
    data: bytes
    offset: int = -1
    line: int = 0
    frames: int = 1
    reserved: bool = False  # a reserved bit set that no extension explains
    masked: bool = False  # a server frame masked (a server must not mask, RFC 6455 5.1)

    def text(self) -> str | None:
        """The payload as text: a text message's (None when it is not UTF-8)."""
        if self.op != "text":
            return None
        try:
            return self.data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def json(self) -> dict[str, Any] | None:
        """The payload as one JSON object (an event, a ``response.create``), else None; a
        binary message's too (a client library may read it as it reads text)."""
        if self.op not in ("text", "binary"):
            return None
        try:
            obj = orjson.loads(self.data)
        except orjson.JSONDecodeError:
            return None
        return obj if isinstance(obj, dict) else None


def sse_event(data: bytes, obj: dict[str, Any]) -> bytes:
    """A message's JSON event as the SSE event it would be over HTTP (``event: TYPE`` and
    ``data: JSON``): ``data`` as sent unless a line break in it (JSON allows one between
    tokens) would end the ``data:`` line, then ``obj`` written on one line."""
    if b"\n" in data or b"\r" in data:
        data = orjson.dumps(obj)
    kind = obj.get("type")
    head = f"event: {kind}\n".encode() if isinstance(kind, str) and kind.isprintable() else b""
    return head + b"data: " + data + b"\n\n"


@dataclass(frozen=True, slots=True)
class Closed:
    """A Close frame (``code`` None when it had no payload), or the end of the TCP
    connection without one (``frame`` False)."""

    t: float
    by: str
    code: int | None
    reason: str = ""
    offset: int = -1
    line: int = 0
    frame: bool = True


@dataclass(frozen=True, slots=True)
class Broken:
    """The server's bytes cannot be read on as frames from here (a reserved opcode, a
    message past :data:`MAX_MESSAGE`, a bad continuation): where, and why."""

    t: float
    offset: int
    line: int
    message: str


Item = Message | Closed | Broken


def deflate_agreed(extensions: str | None) -> bool:
    """Did the 101's ``Sec-WebSocket-Extensions`` agree to permessage-deflate (so RSV1 marks
    a compressed message)?"""
    agreed = extensions or ""
    return any(p.split(";")[0].strip().lower() == "permessage-deflate" for p in agreed.split(","))


class ServerFrames:
    """The server's bytes, fed as they were read, decoded into messages and control frames.

    ``feed(t, data, line)`` returns what the bytes completed; ``finish(t)`` what the end of
    the bytes means (a frame or message cut off). After a :class:`Broken` nothing more is
    decoded (frames cannot be found past bytes that are not one)."""

    def __init__(self, *, deflate: bool = False, max_message: int = MAX_MESSAGE) -> None:
        self.deflate = deflate
        self.max_message = max_message
        self._buf = bytearray()
        self._pos = 0  # the server-byte offset of _buf[0]
        self._line = 0  # the line of the read holding _buf[0]
        self._parts: list[bytes] = []
        self._size = 0
        self._op: int | None = None  # the data message in progress (its first frame's opcode)
        self._start = (0, 0)  # its first frame's (offset, line)
        self._frames = 0
        self._compressed = False
        self._reserved = False
        self._masked = False
        self._inflater = zlib.decompressobj(-15) if deflate else None
        self.broken = False
        self.closed = False
        self.bytes = 0
        #: Messages numbered so far (the client's, counted by the caller, share the count).
        self.count = 0

    def feed(self, t: float, data: bytes, line: int = 0) -> list[Item]:
        if not self._buf:
            self._line = line
        self.bytes += len(data)
        if self.broken or self.closed:
            return []
        self._buf += data
        out: list[Item] = []
        while not self.broken and not self.closed:
            frame = self._frame(t)
            if frame is None:
                break
            if isinstance(frame, Broken):
                self.broken = True
                out.append(frame)
                break
            out.extend(self._take(t, *frame))
        if not self._buf:
            self._line = line
        return out

    def finish(self, t: float) -> list[Item]:
        """The end of the server's bytes: a frame or message cut off is said."""
        if self.broken or self.closed:
            return []
        if self._buf:
            return [Broken(t, self._pos, self._line, "the server's bytes end inside a frame")]
        if self._op is not None:
            what = "a message's frames end without its final frame"
            return [Broken(t, self._start[0], self._start[1], what)]
        return []

    def _frame(self, t: float) -> tuple[int, int, int, bytes, int, int, bool] | Broken | None:
        """The next whole frame in the buffer, consumed: (fin, rsv, opcode, payload,
        offset, line, masked); None until it is whole."""
        buf = self._buf
        if len(buf) < 2:
            return None
        fin, rsv, opcode = buf[0] >> 7, (buf[0] >> 4) & 0x7, buf[0] & 0xF
        masked, size, at = bool(buf[1] & 0x80), buf[1] & 0x7F, 2
        if size == 126:
            if len(buf) < 4:
                return None
            size, at = int.from_bytes(buf[2:4], "big"), 4
        elif size == 127:
            if len(buf) < 10:
                return None
            size, at = int.from_bytes(buf[2:10], "big"), 10
        if size > self.max_message:
            why = f"a frame of {size:,} bytes (past {self.max_message:,})"
            return Broken(t, self._pos, self._line, why)
        key = b""
        if masked:
            if len(buf) < at + 4:
                return None
            key, at = bytes(buf[at : at + 4]), at + 4
        if len(buf) < at + size:
            return None
        payload = bytes(buf[at : at + size])
        if masked:
            payload = _unmasked(payload, key)
        offset, line = self._pos, self._line
        del buf[: at + size]
        self._pos += at + size
        return fin, rsv, opcode, payload, offset, line, masked

    def _take(
        self,
        t: float,
        fin: int,
        rsv: int,
        opcode: int,
        payload: bytes,
        offset: int,
        fline: int,
        masked: bool,
    ) -> list[Item]:
        if opcode == _CLOSE:
            self.closed = True
            code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else None
            reason = payload[2:].decode("utf-8", "replace")
            return [Closed(t, "server", code, reason, offset, fline)]
        if opcode in (_PING, _PONG):
            return [Message(0, t, "server", _OPS[opcode], payload, offset, fline, 1, False, masked)]
        if opcode not in (_CONT, _TEXT, _BINARY):
            self.broken = True
            return [Broken(t, offset, fline, f"a frame with the reserved opcode 0x{opcode:X}")]
        if opcode == _CONT and self._op is None:
            self.broken = True
            return [Broken(t, offset, fline, "a continuation frame with no message to continue")]
        if opcode != _CONT and self._op is not None:
            self.broken = True
            why = "a new message began before the last one's final frame"
            return [Broken(t, offset, fline, why)]
        if opcode != _CONT:
            self._op, self._start, self._frames = opcode, (offset, fline), 0
            self._compressed = bool(rsv & 0x4) and self.deflate
            self._reserved = bool(rsv & ~(0x4 if self._compressed else 0) & 0x7)
            self._masked = False
        elif rsv:
            self._reserved = True
        self._frames += 1
        self._masked |= masked
        self._parts.append(payload)
        self._size += len(payload)
        if self._size > self.max_message:
            self.broken = True
            why = f"a message past {self.max_message:,} bytes"
            return [Broken(t, self._start[0], self._start[1], why)]
        if not fin:
            return []
        data = b"".join(self._parts)
        self._parts, self._size = [], 0
        if self._compressed:
            inflated = self._inflate(data)
            if inflated is None:
                self.broken = True
                why = "a compressed message that does not inflate (permessage-deflate)"
                return [Broken(t, self._start[0], self._start[1], why)]
            data = inflated
        op, self._op = self._op, None
        assert op is not None
        self.count += 1
        return [
            Message(
                self.count,
                t,
                "server",
                _OPS[op],
                data,
                self._start[0],
                self._start[1],
                self._frames,
                self._reserved,
                self._masked,
            )
        ]

    def _inflate(self, data: bytes) -> bytes | None:
        assert self._inflater is not None
        try:
            out = self._inflater.decompress(data + b"\x00\x00\xff\xff", self.max_message + 1)
        except zlib.error:
            return None
        return None if len(out) > self.max_message else out


def _unmasked(payload: bytes, key: bytes) -> bytes:
    """A masked payload's bytes (RFC 6455 5.3), as one integer XOR: linear, not per byte."""
    n = len(payload)
    if not n:
        return payload
    mask = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(mask, "big")).to_bytes(n, "big")
