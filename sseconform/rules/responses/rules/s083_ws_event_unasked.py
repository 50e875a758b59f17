"""S083 ws-event-unasked: An event no response.create is waiting for."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import WS_UNASKED

if TYPE_CHECKING:
    from sseconform.rules.responses.session import SessionChecker
    from sseconform.websocket.frames import Message

RULE = define(
    "S083",
    "ws-event-unasked",
    Severity.ERROR,
    "websocket",
    "An event while no response.create waits for its answer.",
    RuleDoc(
        what=(
            "A server event before the client's first `response.create`, or after a turn's "
            "terminal event and before the next `response.create`. Each `response.create` is "
            "answered by its events, in order, ending with one terminal event; nothing comes "
            "between two answers."
        ),
        why=(
            "A gateway that forwards an upstream's trailing events after the terminal one (or "
            "answers the same turn twice after a retry) puts them in the stream of the next "
            "turn."
        ),
        clients=(
            "Measured on 127.0.0.1 (tests/interop/test_websocket_rules.py; "
            "Codex CLI: docs/commands/check.md, A WebSocket session): "
            "openai-python's `responses.connect()` yields such an "
            "event to the loop reading the next turn, before that turn's `response.created` (a "
            "stray delta becomes part of the next answer). Codex CLI finished a "
            "one-turn session with a stray delta after `response.completed` (exit 0). The "
            "openai JS SDK's `ResponsesWS` emits such an event as any other, with no error: one "
            "sent before the create becomes the turn's (two `response.created` in a row), a "
            "delta after `response.completed` reaches the listeners after the answer ended."
        ),
        example=(
            'server message 9 (text): {"type":"response.completed",...}\n'
            'server message 10 (text): {"type":"response.output_text.delta","delta":"again",...}'
        ),
        fix="Nothing after the terminal event until the next response.create.",
    ),
)


@WS_UNASKED.on(RULE)
def check(c: SessionChecker, msg: Message, obj: dict[str, Any]) -> None:
    """An event outside every turn."""
    kind = obj.get("type")
    named = kind if isinstance(kind, str) else "an event without a type"
    when = f"after turn {c.turns}'s terminal event" if c.turns else "before any response.create"
    if c.turns and c.waiting:
        when = "on a lane with no response.create waiting"
    c.report(RULE, f"{named} {when}", msg, "/type")
