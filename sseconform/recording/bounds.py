"""Bounds on what a peer can make a reader take in: an overall deadline, a byte cap, and
content-encoding decoded in bounded steps.

A peer (a gateway under test, a server being recorded) can drip one byte a second, stream
forever, or send 200 KB of gzip that inflates to a gigabyte. Whatever it does, a reader
that uses these ends on time, keeps at most its cap, and says which bound was hit.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import zlib
from collections.abc import Iterator
from typing import Any

__all__ = [
    "ACTIVE",
    "DECODED",
    "INTERRUPTED",
    "MAX_RATIO",
    "BoundHit",
    "Inflater",
    "Interrupted",
    "Watchdog",
    "interrupt",
]

#: Content-encodings decoded (in bounded steps); any other is stored as sent, with a note.
DECODED = frozenset({"gzip", "x-gzip", "deflate"})
#: Decoded bytes allowed per encoded byte, past the first FLOOR: real SSE compresses about
#: 5-30 times; a bomb, about a thousand.
MAX_RATIO = 100
FLOOR = 1024 * 1024
#: Decoded bytes produced per step, so one small read cannot expand at once.
STEP = 64 * 1024


class BoundHit(Exception):
    """A peer broke a bound: ``kind`` is ``deadline``, ``max-bytes`` or ``bomb``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class Inflater:
    """gzip or deflate, decoded STEP bytes at a time; refuses to expand past ``limit`` bytes
    in all, or MAX_RATIO times what arrived (a decompression bomb)."""

    def __init__(self, encoding: str, limit: int | None = None) -> None:
        self.encoding = encoding
        self.limit = limit
        self.raw = 0
        self.decoded = 0
        self._gzip = encoding in ("gzip", "x-gzip")
        self._d = self._new()
        self._first = True

    def _new(self) -> Any:
        return zlib.decompressobj(16 + zlib.MAX_WBITS if self._gzip else zlib.MAX_WBITS)

    def feed(self, data: bytes) -> Iterator[bytes]:
        """The decoded pieces of ``data`` (each at most STEP bytes); raises :class:`BoundHit`
        before a piece would pass a bound, and ``zlib.error`` on a body that is not valid."""
        self.raw += len(data)
        while True:
            try:
                out = self._d.decompress(data, STEP)
            except zlib.error:
                if self._first and not self._gzip:  # deflate sent raw, without its header
                    self._d = zlib.decompressobj(-zlib.MAX_WBITS)
                    self._first = False
                    continue
                raise
            self._first = False
            data = self._d.unconsumed_tail
            if out:
                self._check(len(out))
                yield out
            if self._d.eof:  # a gzip body may hold several members
                data = self._d.unused_data + data
                self._d = self._new()
                if not data:
                    return
            elif not data and len(out) < STEP:  # a full step may leave output inside zlib
                return

    def _check(self, n: int) -> None:
        self.decoded += n
        if self.limit is not None and self.decoded > self.limit:
            raise BoundHit(
                "max-bytes",
                f"the {self.encoding} body decodes to more than {self.limit:,} bytes",
            )
        if self.decoded > FLOOR + MAX_RATIO * self.raw:
            raise BoundHit(
                "bomb",
                f"a decompression bomb: {self.raw:,} {self.encoding} bytes decode to more "
                f"than {self.decoded:,} (over {MAX_RATIO} times); decoding stopped",
            )


class Watchdog:
    """Ends a read that goes on past its deadline, whatever the peer sends: at the deadline
    it shuts the connection's socket down, so a blocked read returns at once. ``fired``
    tells the reader that the end it saw was the deadline's, not the peer's."""

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.fired = False
        #: why the user stopped the exchange (``stop``), or None
        self.stopped: str | None = None
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        if seconds is not None:
            self._timer = threading.Timer(seconds, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def watch(self, sock: socket.socket | None) -> None:
        """The socket to shut down at the deadline or a stop (at once, if one has come)."""
        if sock is None:
            return
        with self._lock:
            self._sockets.append(sock)
            fired = self.fired or self.stopped is not None
        if fired:
            _shutdown(sock)

    def stop(self, reason: str) -> bool:
        """End the exchange for the user (a signal handler calls it): the read returns, and
        the reader keeps everything it had. False when no connection is open yet, so the
        caller interrupts the connect instead. Takes no lock: a handler may run while the
        main thread holds it."""
        self.stopped = reason
        sockets = list(self._sockets)
        for sock in sockets:
            _shutdown(sock)
        return bool(sockets)

    def trace(self, name: str, info: dict[str, Any]) -> None:
        """An httpx ``trace`` extension: watches each connection as it is opened."""
        if name == "connection.connect_tcp.complete":
            stream = info.get("return_value")
            if stream is not None:
                self.watch(stream.get_extra_info("socket"))

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shutdown(sock)

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()


def _shutdown(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed: the read has ended anyway
        sock.shutdown(socket.SHUT_RDWR)


#: The reason a Ctrl-C gives (``record.Outcome.interrupted`` reads it).
INTERRUPTED = "interrupted (SIGINT)"


class Interrupted(Exception):
    """Raised by :func:`interrupt` when a signal comes before the connection is open."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


#: The main thread's exchange in progress, for :func:`interrupt` (a gate's threads record
#: too, but signals only reach the main thread).
ACTIVE: list[Watchdog] = []


def interrupt(reason: str) -> bool:
    """Stop the main thread's recording for the user (SIGINT and SIGTERM handlers call it).

    While a connection is open, its socket is shut down and the read loop ends the
    recording itself, incomplete, with ``reason``: no exception is raised inside the HTTP
    client, whose clean-up takes locks an exception could leave held (a run once hung
    there for good). False when no connection is open: the caller raises instead.
    """
    return bool(ACTIVE) and ACTIVE[-1].stop(reason)
