"""S081 ws-binary-message: An event sent as a binary WebSocket message."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import WS_MESSAGE

if TYPE_CHECKING:
    from sseconform.rules.responses.session import SessionChecker
    from sseconform.websocket.frames import Message

RULE = define(
    "S081",
    "ws-binary-message",
    Severity.ERROR,
    "websocket",
    "An event sent as a binary WebSocket message, not a text one.",
    RuleDoc(
        what=(
            "A server message with the binary opcode (0x2). The Responses API's WebSocket mode "
            "sends each event as a text message (opcode 0x1) holding its JSON."
        ),
        why=(
            "A bridge that writes the upstream's bytes with a generic `send(bytes)` gets a binary "
            "frame from most WebSocket libraries; the JSON inside is the same, the frame is not."
        ),
        clients=(
            "Measured on 127.0.0.1 (tests/interop/test_websocket_rules.py; "
            "Codex CLI: docs/commands/check.md, A WebSocket session): "
            "Codex CLI drops the socket at the first binary "
            "message and, after its retries, falls back to HTTP (with no retries configured: a "
            "second upgrade, then the POST at 0.72 s; with its default 5 retries about 6 s more). "
            "openai-python's `responses.connect()` reads the JSON in a binary message as "
            "it reads a text one. The openai JS SDK's `ResponsesWS` hands a binary message to "
            "its `raw` listeners unparsed: the delta in it is lost without an error, and the "
            "turn ends with `response.completed` on a shorter answer."
        ),
        example='server message 2 (binary): {"type":"response.created","response":{...}}',
        fix='server message 2 (text): {"type":"response.created","response":{...}}',
    ),
)


@WS_MESSAGE.on(RULE)
def check(c: SessionChecker, msg: Message, obj: dict[str, Any] | None) -> None:
    """A data message with the binary opcode."""
    if msg.op == "binary":
        c.report(RULE, f"a binary message ({len(msg.data):,} bytes): events are text messages", msg)
