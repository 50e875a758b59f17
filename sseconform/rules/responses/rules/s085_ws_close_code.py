"""S085 ws-close-code: A Close frame with a code no endpoint may send."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import WS_CLOSED

if TYPE_CHECKING:
    from sseconform.rules.responses.session import SessionChecker
    from sseconform.websocket.frames import Closed

RULE = define(
    "S085",
    "ws-close-code",
    Severity.ERROR,
    "websocket",
    "A Close frame with a code no endpoint may send, or a reason that is not UTF-8.",
    RuleDoc(
        what=(
            "The server's Close frame carries a code RFC 6455 (7.4) does not let an endpoint "
            "send: below 1000, 1004, 1005, 1006, 1015, 1016-2999 (unassigned) or 5000 and up; "
            "or a one-byte payload; or a reason that is not UTF-8."
        ),
        why=(
            "1005 and 1006 are what a library reports when no code came; a gateway that copies "
            "such a value from its upstream's failure into its own Close sends a code that means "
            "nothing on the wire."
        ),
        clients=(
            "Measured on 127.0.0.1 (tests/interop/test_websocket_rules.py; "
            "Codex CLI: docs/commands/check.md, A WebSocket session): "
            "openai-python's `responses.connect()` finished a turn "
            "that a Close 1005 followed, without an error (the code is read only once the answer "
            "is whole). A client library checking the code (websockets, "
            "wsproto) answers it with 1002 protocol error. The openai JS SDK's `ResponsesWS` "
            "also ends the turn with `response.completed`, then emits an error (its `ws` "
            'transport rejects Close 1006: "invalid status code") and reports the close as '
            "1006; an app that binds no `error` listener (the SDK asks for one) dies of the "
            "unhandled rejection after the answer, which a valid Close 1000 does not cause: an "
            "error, since one measured client's process ends on it."
        ),
        example="server Close 1006",
        fix="server Close 1011 (internal error), or 1000 once every answer is whole",
    ),
)

_ALLOWED = frozenset({1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014})


@WS_CLOSED.on(RULE)
def check(c: SessionChecker, closed: Closed) -> None:
    """The server's Close frame, its code and reason."""
    if closed.by != "server" or not closed.frame or closed.code is None:
        return
    if closed.code not in _ALLOWED and not 3000 <= closed.code <= 4999:
        c.report_at(RULE, f"Close code {closed.code}: no endpoint may send it", closed.offset,
                    closed.line)  # fmt: skip
    elif "\ufffd" in closed.reason:
        c.report_at(RULE, "the Close reason is not UTF-8", closed.offset, closed.line)
