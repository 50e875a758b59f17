"""S082 ws-closed-mid-response: The connection closed while a response was streaming."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import WS_CLOSED

if TYPE_CHECKING:
    from sseconform.rules.responses.session import SessionChecker
    from sseconform.websocket.frames import Closed

RULE = define(
    "S082",
    "ws-closed-mid-response",
    Severity.ERROR,
    "websocket",
    "The server closed the connection mid-response, with no error event.",
    RuleDoc(
        what=(
            "The server sent a Close frame, or the TCP connection ended, while a `response.create` "
            "was unanswered: no terminal event (`response.completed`, `.failed`, `.incomplete`) "
            "and no `error` event came before it. A failed turn is said with an `error` event "
            '(`{"type":"error","status":N,"error":{...}}`) on an open socket.'
        ),
        why=(
            "A gateway whose upstream fails mid-stream and that just closes the client's socket "
            "leaves the client to guess: a short answer, a crash, or a network fault."
        ),
        clients=(
            "Measured on 127.0.0.1 (tests/interop/test_websocket_rules.py; "
            "Codex CLI: docs/commands/check.md, A WebSocket session): "
            "openai-python's `responses.connect()` ends its "
            "iteration without an error after a Close 1000 (the caller sees a cut answer as a "
            "whole one) and raises ConnectionClosedError after a Close 1011. Codex CLI, "
            "after either code, retries the turn 5 times on new sockets, then falls back to HTTP "
            "(6.9 s instead of 0.6 s). The openai JS SDK's `ResponsesWS` (which reconnects only "
            "when asked to) emits no error after a Close 1011: its close listener gets 1011 "
            "after the last delta, and only a caller that waits for a terminal event knows the "
            "answer was cut; a connection that ends before any event, with no Close, is a close "
            "1006, again with no error."
        ),
        example=(
            'server message 3 (text): {"type":"response.output_text.delta","delta":"Hel",...}\n'
            "server Close 1011 (internal error)"
        ),
        fix=(
            'server message 4 (text): {"type":"error","status":502,"error":{"type":"server_error",'
            '"code":"upstream_error","message":"the upstream closed mid-response"}}'
        ),
    ),
)


@WS_CLOSED.on(RULE)
def check(c: SessionChecker, closed: Closed) -> None:
    """The server's Close, or the TCP end, while a turn waits for its terminal event."""
    waiting = c.waiting
    if closed.by != "server" or not waiting:
        return
    turn = waiting[0]
    how = f"a Close {closed.code}" if closed.frame and closed.code else "the connection ended"
    if closed.frame and closed.code is None:
        how = "a Close with no code"
    said = "after the answer began" if turn.answering else "before any event of the answer"
    more = f" (and {len(waiting) - 1} more turn(s) waiting)" if len(waiting) > 1 else ""
    c.report_at(
        RULE,
        f"{how} {said}, with no terminal event and no error event for turn {turn.number}{more}",
        closed.offset,
        closed.line,
    )
