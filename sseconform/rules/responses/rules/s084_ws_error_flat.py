"""S084 ws-error-flat: An error event in SSE's flat shape on a WebSocket."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import WS_TURN_END

if TYPE_CHECKING:
    from sseconform.rules.responses.session import SessionChecker
    from sseconform.rules.responses.turn import LaneTurn

RULE = define(
    "S084",
    "ws-error-flat",
    Severity.ERROR,
    "websocket",
    "An `error` event without `status` and a nested `error` object.",
    RuleDoc(
        what=(
            "A turn that failed with an `error` event in the flat shape of the SSE stream "
            '(`{"type":"error","code":...,"message":...}`) instead of the WebSocket mode\'s '
            '`{"type":"error","status":N,"error":{"type","code","message"}}`: the '
            "HTTP status the failure would have had, and the error object a POST's body holds; "
            "and no `response.failed` after it (OpenAI's SSE stream sends one after its "
            "error, and Codex acts on that)."
        ),
        why=(
            "The status tells the client whether to retry (5xx) or give up (4xx); a gateway that "
            "copies its SSE error events to the socket drops it."
        ),
        clients=(
            "Measured on 127.0.0.1 (tests/interop/test_websocket_rules.py; "
            "Codex CLI: docs/commands/check.md, A WebSocket session): "
            "Codex CLI ignores a flat `error` event and waits for "
            "its idle timeout before falling back to HTTP (10 s a wait with "
            "`stream_idle_timeout_ms = 10000`; with its default it was still waiting after 300 s). "
            "With `status` 400 it fails the turn at once; with 500 it retries. openai-python's "
            "`responses.connect()` yields either shape as an error event, and the openai JS "
            "SDK's `ResponsesWS` emits the flat event and an error with its top-level `message`."
        ),
        example='server message 2 (text): {"type":"error","code":"server_error","message":"boom"}',
        fix=(
            'server message 2 (text): {"type":"error","status":500,"error":{"type":"server_error",'
            '"code":"server_error","message":"boom"}}'
        ),
    ),
)


@WS_TURN_END.on(RULE)
def check(c: SessionChecker, turn: LaneTurn) -> None:
    """A turn that failed with an error event lacking the status and the nested error, and
    no ``response.failed`` after it (which Codex does act on)."""
    if "response.failed" in turn.kinds:
        return
    for msg, obj in turn.errors:
        nested = obj.get("error")
        if isinstance(obj.get("status"), int) and isinstance(nested, dict):
            continue
        missing = [k for k in ("status", "error") if k not in obj]
        said = (
            f"no {' and no '.join(missing)}" if missing else "`status` or `error` of the wrong type"
        )
        c.report(
            RULE,
            f"the turn failed with an error event in the SSE shape ({said}) and no "
            "response.failed: Codex CLI ignores it",
            msg,
        )
        return
