"""The socket side of ``replay``: reading a connection's requests, writing with a deadline,
ending a connection the way a dying upstream does, and the event loop it all runs on.

Everything here moves bytes; what the bytes mean is :mod:`.http11`'s, and which recording
answers is the server's.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import socket
import struct
from collections.abc import Callable, Iterable

from sseconform.replay.http11 import (
    CHUNKED,
    MAX_BODY,
    MAX_TRAILERS,
    BadRequest,
    RequestHead,
    body_length,
    chunk_size,
    plain_head,
    trailer_field,
)

__all__ = [
    "FLUSH_TIMEOUT",
    "IDLE_TIMEOUT",
    "WRITE_TIMEOUT",
    "Input",
    "drain",
    "flushed",
    "is_loopback",
    "new_loop",
    "plain",
    "read_body",
    "reset",
    "sleep_until",
]

#: How long a kept-alive connection may wait for its next request. Longer than the pools of
#: common clients keep an idle connection (httpx 5 s, undici 4 s, aiohttp 15 s), so a pooled
#: connection is never closed under a request on its way; announced in ``keep-alive``.
IDLE_TIMEOUT = 60
#: How long one write may wait for a client that stopped reading before it is dropped.
WRITE_TIMEOUT = 30.0
#: How long a drop waits for the bytes before it to leave the socket (a reset discards what
#: the kernel has not sent yet): the client gets every byte the plan sends, then the reset.
FLUSH_TIMEOUT = 5.0


class Input:
    """The request side of one connection: its StreamReader, and a byte read ahead of the
    next request (the hang-up watch reads one; when it is a pipelined request's first byte,
    it must not be lost)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader
        self.ahead = b""

    async def readuntil(self, separator: bytes) -> bytes:
        if not self.ahead:
            return await self.reader.readuntil(separator)
        got, self.ahead = self.ahead, b""
        return got + await self.reader.readuntil(separator)

    async def read_head(self, limit: int) -> bytes:
        """A request head through its blank line, whose lines end in CRLF or a lone LF (RFC
        9112 2.2, as h11 reads them); one blank line before it is skipped (2.2 again: a
        client may send one after a body). ``LimitOverrunError`` past ``limit`` bytes."""
        head, skipped = b"", False
        while True:
            try:
                line = await self.readuntil(b"\n")
            except asyncio.IncompleteReadError as exc:  # cut short: say what came
                raise asyncio.IncompleteReadError(head + exc.partial, None) from None
            if line in (b"\n", b"\r\n"):
                if head or skipped:
                    return head + line  # a second blank line first: an empty request line
                skipped = True
                continue
            head += line
            if len(head) > limit:
                raise asyncio.LimitOverrunError("a request head over the limit", len(head))

    async def readexactly(self, n: int) -> bytes:
        got, self.ahead = self.ahead[:n], self.ahead[n:]
        return got + (await self.reader.readexactly(n - len(got)) if n > len(got) else b"")

    async def next_request(self, timeout: float) -> bool:
        """Wait for the next request's first byte; False when the client left or stayed
        idle for ``timeout`` (the connection is then closed quietly, as idle ones are)."""
        if self.ahead:
            return True
        try:
            async with asyncio.timeout(timeout):
                self.ahead = await self.reader.read(1)
        except (TimeoutError, ConnectionError):
            return False
        return bool(self.ahead)

    def took(self, watch: asyncio.Future[bytes]) -> bool:
        """After a response, what the hang-up watch read: nothing (it was cancelled) or a byte,
        kept for the next request, leave the client there (True); the end of the input, or an
        error, means it has gone."""
        if watch.cancelled():
            return True
        if watch.exception() is not None:
            return False
        data = watch.result()
        self.ahead += data
        return bool(data)


def is_loopback(host: str) -> bool:
    """Is ``host`` this machine only (anything else is warned about: a recording served
    there can be read by whoever reaches it)?"""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def new_loop() -> asyncio.AbstractEventLoop:
    """An event loop on poll(): epoll rounds every timeout up to the next millisecond and
    Python rounds again, so writes would leave up to 2 ms late; poll keeps p99 near 1 ms."""
    import selectors

    if hasattr(selectors, "PollSelector"):
        return asyncio.SelectorEventLoop(selectors.PollSelector())
    return asyncio.new_event_loop()


async def sleep_until(loop: asyncio.AbstractEventLoop, due: float) -> None:
    delay = due - loop.time()
    if delay > 0:
        await asyncio.sleep(delay)


async def flushed(writer: asyncio.StreamWriter) -> None:
    """Wait (up to FLUSH_TIMEOUT) until the kernel holds nothing unacknowledged for this
    socket, so a reset discards nothing the plan sent. Where the queue cannot be read (not
    Linux), drain() has already handed everything to the kernel, which is as far as we see."""
    sock = writer.get_extra_info("socket")
    try:
        import fcntl
        import termios

        request = termios.TIOCOUTQ  # SIOCOUTQ on a socket: bytes not yet acknowledged
        fd = sock.fileno()
    except (ImportError, AttributeError, OSError):
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + FLUSH_TIMEOUT
    buf = bytearray(4)
    while True:
        try:
            fcntl.ioctl(fd, request, buf)
        except OSError:
            return
        if int.from_bytes(buf, "little", signed=True) <= 0 or loop.time() > deadline:
            return
        await asyncio.sleep(0.001)


def reset(writer: asyncio.StreamWriter) -> None:
    """End the connection the way a dying upstream does: a reset (SO_LINGER on with a zero
    timeout, then close), never a clean FIN that a client could take for the end."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def plain(
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes,
    *,
    reason: str | None = None,
    close: bool = True,
    head_only: bool = False,
    idle: int = IDLE_TIMEOUT,
    headers: Iterable[tuple[str, str]] = (),
) -> None:
    """A JSON answer with a length (and ``headers`` besides); ``close`` ends the connection
    after it (and says so), else it is announced as kept ``idle`` seconds."""
    head = plain_head(status, len(body), reason=reason, close=close, idle=idle, headers=headers)
    writer.write(head if head_only else head + body)
    with contextlib.suppress(ConnectionError):
        await drain(writer)
    if close:
        writer.close()


async def drain(writer: asyncio.StreamWriter) -> None:
    """Wait until a write is on the wire, at most WRITE_TIMEOUT: a client that stopped
    reading does not hold the connection (and what it was sent) for ever."""
    # asyncio.timeout, not wait_for: on Python 3.11 wait_for can swallow a cancellation that
    # arrives as the drain completes, and a stopping server would then wait on the connection
    async with asyncio.timeout(WRITE_TIMEOUT):
        await writer.drain()


async def read_body(conn: Input, req: RequestHead, reserve: Callable[[int], None]) -> bytes:
    """A request's body, strictly framed (:func:`.http11.body_length`): a chunked one read
    chunk by chunk, its trailer fields read and dropped, MAX_BODY for one request (413).
    ``reserve(n)`` is told of every ``n`` bytes before they are read (and may refuse them)."""
    length = body_length(req.headers)
    if length == 0:
        return b""
    if length != CHUNKED:
        reserve(length)
        return bytes(await conn.readexactly(length))
    out = bytearray()
    while True:
        size = chunk_size(await conn.readuntil(b"\r\n"))
        if size == 0:  # trailer fields, if any, then the blank line
            for _ in range(MAX_TRAILERS):
                line = await conn.readuntil(b"\r\n")
                if line == b"\r\n":
                    return bytes(out)
                trailer_field(line)
            raise BadRequest(f"more than {MAX_TRAILERS} trailer fields")
        if len(out) + size > MAX_BODY:
            raise BadRequest(f"a request body over {MAX_BODY:,} bytes", 413)
        reserve(size)
        out += await conn.readexactly(size + 2)
        if out[-2:] != b"\r\n":
            raise BadRequest("a chunk not followed by CRLF")
        del out[-2:]
