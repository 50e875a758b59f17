"""S044 terminal-status-mismatch: The terminal event's status contradicts it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.events import TERMINAL
from sseconform.rules.responses.hooks import TERMINAL as AT_TERMINAL

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S044",
    "terminal-status-mismatch",
    Severity.ERROR,
    "one-terminal-event",
    "The terminal event's status contradicts it.",
    RuleDoc(
        what=(
            "`response.completed` whose `response.status` is not `completed` (likewise "
            "`incomplete`, `failed`)."
        ),
        why=("Callers check `response.status`; the event type and the status must say the same."),
        clients=(
            "openai-python: `get_final_response()` returns the response with the wrong status "
            "(the measured case: a completed stream whose final response says `in_progress`)."
        ),
        fix='data: {"type":"response.completed","response":{"status":"completed",...}}\n\n',
    ),
)


@AT_TERMINAL.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str, response: dict[str, Any]) -> None:
    """A terminal event whose response status is not its own."""
    status = response.get("status")
    want = TERMINAL[kind]
    if status != want:
        c.report(RULE, f"{kind} with status {status!r}, not {want!r}", ev, "/response/status")
