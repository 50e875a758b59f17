"""S086 ws-frames-broken: Server frames a WebSocket client must refuse."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import WS_BROKEN, WS_FRAME

if TYPE_CHECKING:
    from sseconform.rules.responses.session import SessionChecker
    from sseconform.websocket.frames import Broken, Message

RULE = define(
    "S086",
    "ws-frames-broken",
    Severity.ERROR,
    "websocket",
    "Server frames a WebSocket client must refuse (masked, reserved bits or opcode, cut).",
    RuleDoc(
        what=(
            "The server's frames break RFC 6455: a masked frame (a server never masks), a "
            "reserved bit set that no agreed extension explains, a reserved opcode, a "
            "continuation frame with no message to continue, a new message before the last "
            "one's final frame, or bytes that end inside a frame. Nothing after such a frame "
            "can be read as frames."
        ),
        why=(
            "A gateway that writes frames of its own (not through a WebSocket library), or "
            "relays a client-side library's masked frames to its client, breaks the framing."
        ),
        clients=(
            "Measured on 127.0.0.1 (tests/interop/test_websocket_rules.py; "
            "Codex CLI: docs/commands/check.md, A WebSocket session): "
            "openai-python's `responses.connect()` closes the "
            'connection with 1002 and raises ConnectionClosedError at a masked frame ("incorrect '
            'masking"), a reserved opcode ("invalid opcode") and RSV1 without '
            'permessage-deflate ("reserved bits must be 0"). The openai JS SDK\'s `ResponsesWS` '
            'emits an error at a masked frame ("MASK must be clear") and a reserved opcode '
            '("invalid opcode 3") and its socket closes before the turn\'s terminal event.'
        ),
        example="server frame at byte 212: 0x83 (FIN, opcode 0x3: reserved)",
        fix="Send each event as one unmasked text frame (FIN, opcode 0x1).",
    ),
)


@WS_FRAME.on(RULE)
def check(c: SessionChecker, msg: Message) -> None:
    """A frame a client refuses, though its message could be read."""
    if msg.masked:
        c.report(RULE, "a masked server frame (a server must not mask: RFC 6455 5.1)", msg)
    elif msg.reserved:
        c.report(RULE, "a reserved bit set that no agreed extension explains", msg)


@WS_BROKEN.on(RULE)
def broken(c: SessionChecker, b: Broken) -> None:
    """Bytes that cannot be read on as frames."""
    c.report_at(RULE, f"{b.message}: nothing after it can be read", b.offset, b.line)
