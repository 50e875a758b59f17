"""S087 ws-previous-response-lost: A response this connection gave, not found by it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import WS_ERROR

if TYPE_CHECKING:
    from sseconform.rules.responses.session import SessionChecker
    from sseconform.websocket.frames import Message

RULE = define(
    "S087",
    "ws-previous-response-lost",
    Severity.ERROR,
    "websocket",
    "previous_response_id of a response this same connection gave, answered as not found.",
    RuleDoc(
        what=(
            "An `error` event with code `previous_response_not_found` (or a message saying the "
            "previous response was not found) for a turn chained to a response that an earlier "
            "turn on this same connection answered with. The WebSocket mode keeps the "
            "connection's responses in memory (`store: false` included), so a later turn sends "
            "only its new input items with `previous_response_id`."
        ),
        why=(
            "A gateway that bridges each `response.create` to a stateless upstream as it came "
            "loses the conversation: it must keep what earlier turns sent and got, or keep one "
            "upstream socket per client socket."
        ),
        clients=(
            "Measured on 127.0.0.1 (tests/interop/test_websocket_rules.py; "
            "Codex CLI: docs/commands/check.md, A WebSocket session): "
            "Codex CLI chains every turn after its prewarm this "
            "way; an `error` event with status 400 fails the turn at once (exit 1, no retry, no "
            "fallback to HTTP). openai-python's `responses.connect()` yields the error "
            "event; the conversation cannot go on. The openai JS SDK's `ResponsesWS` does the "
            "same: it emits the event, and an error with its message."
        ),
        example=(
            'client message 5: {"type":"response.create","previous_response_id":"resp_1",...}\n'
            'server message 6: {"type":"error","status":400,"error":{"code":'
            '"previous_response_not_found",...}}'
        ),
        fix="Answer the chained turn: the connection's earlier response is the context.",
    ),
)


@WS_ERROR.on(RULE)
def check(c: SessionChecker, msg: Message, obj: dict[str, Any]) -> None:
    """A not-found error for an id this connection handed out."""
    nested = obj.get("error")
    err = nested if isinstance(nested, dict) else obj
    code, text = err.get("code"), str(err.get("message", ""))
    if code != "previous_response_not_found" and "not found" not in text.lower():
        return
    chained = c.current.chained if c.current is not None else set()
    lost = sorted(i for i in c.response_ids if i in text) or sorted(chained & c.response_ids)
    if lost:
        c.report(RULE, f"{lost[0]}: given on this connection, then not found by it", msg)
