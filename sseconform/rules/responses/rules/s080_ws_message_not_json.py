"""S080 ws-message-not-json: A WebSocket message that is not one JSON object."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import WS_MESSAGE
from sseconform.safetext import printable

if TYPE_CHECKING:
    from sseconform.rules.responses.session import SessionChecker
    from sseconform.websocket.frames import Message

RULE = define(
    "S080",
    "ws-message-not-json",
    Severity.ERROR,
    "websocket",
    "A WebSocket text message that is not one JSON object.",
    RuleDoc(
        what=(
            "In the Responses API's WebSocket mode, a server text message that is not exactly one "
            "JSON object: SSE framing carried inside it (`event: ...` / `data: ...`), two events "
            "in one message, or text that is not JSON. Each event is one message holding its "
            "JSON object, and nothing else."
        ),
        why=(
            "A gateway that bridges an SSE upstream to a WebSocket client and forwards the SSE "
            "bytes as they came sends the framing along; one that batches writes sends several "
            "events in one message. The client parses each message as one JSON value."
        ),
        clients=(
            "Measured on 127.0.0.1 (tests/interop/test_websocket_rules.py; "
            "Codex CLI: docs/commands/check.md, A WebSocket session): "
            "openai-python's `responses.connect()` raises "
            "JSONDecodeError from its iterator at the first such message (SSE framing, two "
            "objects, plain text alike). Codex CLI skips the message and waits for its "
            "idle timeout, then falls back to HTTP: with `stream_idle_timeout_ms = 10000` a "
            "session took 20.8 s instead of 1.3 s (the prewarm and the turn each waited 10 s); "
            "with its default timeout it waits minutes. The openai JS SDK's `ResponsesWS` "
            "raises nothing: it hands a message that does not parse to its `raw` listeners and "
            "reads on, so the events in it are lost without an error (the case's "
            "`response.created`; both events of a two-event message) and the turn still ends "
            "with `response.completed`."
        ),
        example=(
            'server message 2 (text): event: response.created\\ndata: {"type":"response.created",'
            '"response":{...}}\\n\\n'
        ),
        fix='server message 2 (text): {"type":"response.created","response":{...}}',
    ),
)


@WS_MESSAGE.on(RULE)
def check(c: SessionChecker, msg: Message, obj: dict[str, Any] | None) -> None:
    """A text message whose payload does not parse as one JSON object."""
    if obj is not None or msg.op != "text":
        return
    text = msg.text()
    if text is None:
        c.report(RULE, "a text message that is not UTF-8", msg)
        return
    head = text.lstrip()[:40]
    if head.startswith(("event:", "data:", "id:", ":")):
        why = "SSE framing inside the message (each event is its JSON object alone)"
    elif head.startswith(("{", "[")):
        why = "not one JSON object (two events in one message, or a JSON value that is not one)"
    else:
        why = "not JSON"
    c.report(RULE, f"{why}: {printable(head)!s}", msg)
