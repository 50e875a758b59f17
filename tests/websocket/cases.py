"""WebSocket session cases: ``session.txt`` (readable, one message a line) made into the
version-2 recording ``record --transport websocket`` writes, frames and all.

A line of ``session.txt`` (blank lines and ``#`` comments skipped), each 0.01 s after the
one before::

    > {"type":"response.create",...}   the client's text message
    < {...}                            the server's text message, one frame
    <binary {...}                      the server's message as a binary frame
    <split N {...}                     the server's text message in two frames, cut at byte N
    <masked {...}                      the server's text message in a masked frame
    <ping                              a ping from the server
    <hex 8300                          raw bytes from the server
    <close CODE [reason]               the server's Close frame
    >close CODE                        the client closes first (the end line says so)
    eof                                the TCP connection ends with no Close

Escapes in a message: ``\\n`` stands for a line feed (SSE framing inside a message).
"""

from __future__ import annotations

from pathlib import Path

from sseconform.recording.format import Close, RecordingWriter, Response

UPGRADE = {
    "method": "GET",
    "url": "http://127.0.0.1:9/v1/responses",
    "headers": [
        ["Host", "127.0.0.1:9"],
        ["Connection", "Upgrade"],
        ["Upgrade", "websocket"],
        ["Sec-WebSocket-Version", "13"],
        ["Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="],
    ],
    "body": None,
}
SWITCHED = Response(
    101,
    "Switching Protocols",
    "HTTP/1.1",
    [
        ("upgrade", "websocket"),
        ("connection", "Upgrade"),
        ("sec-websocket-accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
    ],
)


def frame(payload: bytes, opcode: int = 0x1, fin: bool = True, mask: bytes = b"") -> bytes:
    """One frame as a server (or, with ``mask``, a client) writes it (RFC 6455 5.2)."""
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | opcode])
    bit = 0x80 if mask else 0
    if n < 126:
        head += bytes([bit | n])
    elif n < 1 << 16:
        head += bytes([bit | 126]) + n.to_bytes(2, "big")
    else:
        head += bytes([bit | 127]) + n.to_bytes(8, "big")
    if mask:
        payload = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return head + mask + payload


def server_bytes(line: str) -> bytes | None:
    """A ``<`` line's bytes (None: not a server line)."""
    word, _, rest = line.partition(" ")
    text = rest.replace("\\n", "\n").encode()
    if word == "<":
        return frame(text)
    if word == "<binary":
        return frame(text, 0x2)
    if word == "<masked":
        return frame(text, mask=b"\x12\x34\x56\x78")
    if word == "<split":
        at, _, body = rest.partition(" ")
        data = body.replace("\\n", "\n").encode()
        return frame(data[: int(at)], fin=False) + frame(data[int(at) :], opcode=0x0)
    if word == "<ping":
        return frame(b"", 0x9)
    if word == "<hex":
        return bytes.fromhex(rest)
    if word == "<close":
        code, _, reason = rest.partition(" ")
        return frame(int(code).to_bytes(2, "big") + reason.encode(), 0x8)
    return None


def build(session: Path, out: Path) -> Path:
    """The recording of ``session`` (a ``session.txt``), written to ``out``."""
    w = RecordingWriter(out, request=UPGRADE, transport="websocket", force=True)
    w.response(SWITCHED, t=0.001)
    t = 0.001
    close: Close | None = None
    for n, raw in enumerate(session.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        t = round(t + 0.01, 6)
        data = server_bytes(line)
        if data is not None:
            w.read(t, data)
        elif line.startswith(">close"):
            close = Close("client", int(line.split()[1]))
        elif line.startswith("> "):
            w.sent(t, "text", line[2:])
        elif line == "eof":
            pass
        else:
            raise ValueError(f"{session}:{n}: not a session line: {line!r}")
    if close is not None:
        w.close(t=t, close={"by": close.by, "code": close.code, "reason": close.reason})
    else:
        w.close(t=t)
    return out
