"""The server's frames read back as messages (``sseconform.websocket.frames``): frames made by
wsproto (the server side a real server uses), read whole, split at every byte, fragmented,
compressed, and broken in each way a reader must name."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any

import pytest
from wsproto.connection import Connection, ConnectionType
from wsproto.events import CloseConnection, Ping, TextMessage
from wsproto.events import Message as WsMessage

from sseconform.websocket.frames import Broken, Closed, Item, Message, ServerFrames

EVENTS = [
    '{"type":"response.created","response":{"id":"resp_1"}}',
    '{"type":"response.output_text.delta","delta":"h\u00e9llo \u2603"}',  # UTF-8 to cut
    '{"type":"response.completed","response":{"id":"resp_1"}}',
]


def server_bytes(*events: WsMessage[Any] | CloseConnection | Ping) -> bytes:
    ws = Connection(ConnectionType.SERVER)
    return b"".join(ws.send(e) for e in events)


def read(data: bytes, step: int | None = None, **kw: object) -> list[Item]:
    frames = ServerFrames(**kw)  # type: ignore[arg-type]
    out: list[Item] = []
    pieces: Iterator[bytes] = (
        iter([data]) if step is None else (data[i : i + step] for i in range(0, len(data), step))
    )
    for n, piece in enumerate(pieces, 1):
        out += frames.feed(float(n), piece, line=n)
    return out + frames.finish(99.0)


def texts(items: list[Item]) -> list[str]:
    return [i.data.decode() for i in items if isinstance(i, Message) and i.op == "text"]


WHOLE = server_bytes(*(TextMessage(e) for e in EVENTS), CloseConnection(1000, "bye"))


@pytest.mark.parametrize("step", [None, 1, 2, 3, 7, 64])
def test_messages_whatever_the_reads(step: int | None) -> None:
    items = read(WHOLE, step)
    assert texts(items) == EVENTS
    close = items[-1]
    assert isinstance(close, Closed) and (close.code, close.reason) == (1000, "bye")
    messages = [i for i in items if isinstance(i, Message)]
    assert [m.number for m in messages] == [1, 2, 3]
    # each message's offset is where its frame starts in the server's bytes
    for m in messages:
        assert WHOLE[m.offset] == 0x81 and m.frames == 1 and not m.reserved


def test_a_message_in_continuation_frames() -> None:
    body = EVENTS[1]
    data = server_bytes(
        TextMessage(body[:10], message_finished=False),
        Ping(b"x"),  # a control frame between two fragments is allowed
        TextMessage(body[10:], message_finished=True),
    )
    items = read(data, 1)
    ping = [i for i in items if isinstance(i, Message) and i.op == "ping"]
    assert ping and ping[0].number == 0 and ping[0].data == b"x"
    (msg,) = [i for i in items if isinstance(i, Message) and i.op == "text"]
    assert msg.data.decode() == body and msg.frames == 2 and msg.offset == 0
    assert not [i for i in items if isinstance(i, Closed | Broken)]  # a clean end, no Close


def test_a_masked_server_frame_is_read_and_marked() -> None:
    ws = Connection(ConnectionType.CLIENT)  # a client masks its frames
    data = ws.send(TextMessage(EVENTS[0]))
    (msg,) = read(data)
    assert isinstance(msg, Message) and msg.masked and msg.json() == {
        "type": "response.created", "response": {"id": "resp_1"}}  # fmt: skip


def test_permessage_deflate_when_agreed() -> None:
    comp = zlib.compressobj(wbits=-15)
    payloads = []
    for e in EVENTS:  # context takeover: one compressor for all messages
        raw = comp.compress(e.encode()) + comp.flush(zlib.Z_SYNC_FLUSH)
        payloads.append(raw[:-4])  # the trailing 00 00 ff ff dropped (RFC 7692 7.2.1)
    data = b"".join(bytes([0xC1, len(p)]) + p for p in payloads)  # FIN, RSV1, text
    assert texts(read(data, 5, deflate=True)) == EVENTS
    # RSV1 without the extension agreed is a reserved bit set
    (first, *_rest) = read(data)
    assert isinstance(first, Message) and first.reserved


@pytest.mark.parametrize(
    ("data", "why", "offset"),
    [
        (bytes([0x83, 0]), "reserved opcode 0x3", 0),
        (bytes([0x80, 1]) + b"x", "continuation frame with no message", 0),
        (bytes([0x01, 1]) + b"a" + bytes([0x81, 1]) + b"b", "new message began", 3),
        (bytes([0x81, 5]) + b"ab", "end inside a frame", 0),
        (bytes([0x01, 1]) + b"a", "without its final frame", 0),
        (bytes([0x81, 127]) + (1 << 40).to_bytes(8, "big"), "a frame of", 0),
    ],
    ids=["reserved-op", "stray-continuation", "interleaved", "cut-frame", "cut-message", "huge"],
)
def test_what_cannot_be_read_on_is_said(data: bytes, why: str, offset: int) -> None:
    items = read(data, 1)
    broken = [i for i in items if isinstance(i, Broken)]
    assert len(broken) == 1 and why in broken[0].message, items
    assert broken[0].offset == offset


def test_a_message_past_the_cap_stops_the_reading() -> None:
    data = server_bytes(TextMessage("x" * 100, message_finished=False), TextMessage("y" * 100))
    items = read(data, None, max_message=150)
    assert isinstance(items[-1], Broken) and "past 150 bytes" in items[-1].message


def test_memory_holds_one_message_not_the_session() -> None:
    frames = ServerFrames()
    one = server_bytes(TextMessage(EVENTS[1]))
    for _ in range(10_000):
        assert len(frames.feed(0.0, one)) == 1
    assert frames.count == 10_000 and not frames._buf and not frames._parts
