"""A recorded WebSocket session served again, byte for byte (``replay session.jsonl``).

``record --transport websocket`` keeps every byte the server sent after its 101, with times,
and each message the client sent between them. Replay answers an upgrade on the recorded
path with its own 101 (the accept token is the new client's key's), then plays the server's
side against the new client: the bytes before the first client message at once, and after
each message the client sends, the bytes that followed the recorded one, each read at its
recorded time after it (``--speed`` scales the times). The frames are the recording's
bytes, unchanged: what a client reads is what the recorded server sent.

The client's messages are read as frames (wsproto, bounded as replay's live WebSocket mode
is) and only counted: this is a recording, not a server; what they say does not change the
answer. Where the recorded client closed first, the server's Close waits for the new
client's. A refused upgrade is served as recorded (its status, headers and body).
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from wsproto.connection import Connection, ConnectionType
from wsproto.events import BytesMessage, CloseConnection, Event, TextMessage

from sseconform.recording.format import RecordingReader, Sent
from sseconform.replay.wire import IDLE_TIMEOUT, Input, drain, sleep_until
from sseconform.websocket.frames import Closed, ServerFrames, deflate_agreed

__all__ = ["READ_SIZE", "Played", "RecordedSession", "play", "recorded_session"]

#: Bytes read from the client at once.
READ_SIZE = 64 * 1024
#: Client messages (and control frames) read at most: a recording's own count is far less.
MAX_CLIENT_FRAMES = 10_000
#: After the last recorded byte, how long the client gets to send its Close.
CLOSE_WAIT = 5.0


@dataclass(frozen=True)
class RecordedSession:
    """What replay plays of a session: the server's reads and the client's messages in the
    recorded order, where the server's Close frame starts, and who closed first."""

    steps: list[tuple[float, bytes | Sent]]
    close_at: int | None = None  # the server's Close frame: its offset in the server's bytes
    client_closed: bool = False  # the recorded client sent the first Close

    @property
    def turns(self) -> int:
        return sum(1 for _, s in self.steps if isinstance(s, Sent) and s.op in ("text", "binary"))


def recorded_session(reader: RecordingReader) -> RecordedSession:
    """A session's steps, read once at load (where its Close frame is found with the
    session reader's frame parser, so the server's side is cut there and nowhere else)."""
    steps = list(reader.session())
    resp = reader.response
    frames = ServerFrames(deflate=deflate_agreed(resp.header("sec-websocket-extensions") if resp
                                                 else None))  # fmt: skip
    close_at = None
    for t, item in steps:
        if isinstance(item, bytes):
            for found in frames.feed(t, item):
                if isinstance(found, Closed):
                    close_at = found.offset
    end = reader.end
    client_closed = end is not None and end.close is not None and end.close.by == "client"
    return RecordedSession(steps, close_at, client_closed)


@dataclass
class Played:
    """How a session's replay went: for replay's log."""

    sent: int = 0  # bytes written after the 101
    messages: int = 0  # client data messages read
    ending: str = ""


async def play(
    session: RecordedSession,
    conn: Input,
    writer: asyncio.StreamWriter,
    speed: float,
    t_head: float,
    now: Callable[[], float],
) -> Played:
    """Play ``session`` to a client whose upgrade was just answered 101 (at ``now()``, the
    recorded 101 at ``t_head``)."""
    player = _Player(session, conn, writer, speed, now)
    player.anchor, player.anchor_t = now(), t_head
    await player.run()
    return player.played


class _Player:
    """One replay of a session: the client's frames read (only to wait on them), the
    server's bytes written at their times."""

    def __init__(
        self,
        session: RecordedSession,
        conn: Input,
        writer: asyncio.StreamWriter,
        speed: float,
        now: Callable[[], float],
    ) -> None:
        self.session, self.conn, self.writer, self.speed, self.now = (
            session, conn, writer, speed, now
        )  # fmt: skip
        self.ws = Connection(ConnectionType.SERVER)
        self.played = Played()
        self.anchor, self.anchor_t = 0.0, 0.0
        self.events: deque[Event] = deque()
        if conn.ahead:  # frames sent before the 101 arrived
            self.ws.receive_data(conn.ahead)
            self.events.extend(self.ws.events())
            conn.ahead = b""
        self.offset = 0  # the server's bytes written so far
        self.client_closed = False

    async def run(self) -> None:
        for t, item in self.session.steps:
            if isinstance(item, Sent):
                if item.op not in ("text", "binary"):
                    continue  # a recorded ping or pong of the client's: nothing to wait for
                if self.client_closed or not await self.client_event("message"):
                    return
                self.anchor, self.anchor_t = self.now(), t
            elif not await self.server_bytes(t, item):
                return
        self.played.ending = self.played.ending or "the recording's end"
        if self.session.close_at is not None and not (
            self.client_closed or self.session.client_closed
        ):
            await self.client_event("close")  # the client's answer to the recorded Close

    async def server_bytes(self, t: float, data: bytes) -> bool:
        """One recorded read, at its time; the server's Close held until the client's
        where the recorded client closed first. False when the client left."""
        at = self.session.close_at
        if (
            self.session.client_closed
            and at is not None
            and self.offset <= at < self.offset + len(data)
            and not self.client_closed
        ):
            cut = at - self.offset
            if cut:
                await self.write(data[:cut])
                data = data[cut:]
            if not await self.client_event("close"):
                return False
            self.anchor, self.anchor_t = self.now(), t
        due = self.anchor + max(0.0, t - self.anchor_t) / self.speed if self.speed > 0 else 0.0
        await sleep_until(asyncio.get_running_loop(), due)
        await self.write(data)
        return True

    async def client_event(self, wanted: str) -> bool:
        """Read until the client's next data message (``message``) or its Close (``close``);
        False when it left (or sent something else) instead."""
        while True:
            while self.events:
                event = self.events.popleft()
                if isinstance(event, TextMessage | BytesMessage) and event.message_finished:
                    self.played.messages += 1
                    if wanted == "message":
                        return True
                elif isinstance(event, CloseConnection):  # a peer's, or a protocol error
                    self.client_closed = True
                    self.played.ending = f"closed {event.code} by the client"
                    return wanted == "close"
            if self.played.messages > MAX_CLIENT_FRAMES:
                self.played.ending = "too many client messages"
                return False
            try:
                async with asyncio.timeout(IDLE_TIMEOUT if wanted == "message" else CLOSE_WAIT):
                    data = await self.conn.reader.read(READ_SIZE)
            except TimeoutError:
                self.played.ending = self.played.ending or f"no client {wanted} within the wait"
                return False
            if not data:
                self.played.ending = self.played.ending or "client left"
                return False
            self.ws.receive_data(data)
            self.events.extend(self.ws.events())

    async def write(self, data: bytes) -> None:
        self.writer.write(data)
        self.played.sent += len(data)
        self.offset += len(data)
        await drain(self.writer)
