"""S088 ws-stream-id: An event that does not say which lane it answers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import WS_LANE

if TYPE_CHECKING:
    from sseconform.rules.responses.session import SessionChecker
    from sseconform.rules.responses.turn import LaneTurn
    from sseconform.websocket.frames import Message

RULE = define(
    "S088",
    "ws-stream-id",
    Severity.WARNING,
    "websocket",
    "An event without the stream_id of its lane, or naming a lane never asked for.",
    RuleDoc(
        what=(
            "The client ran lanes on one connection (`response.create` with `stream_id`: each "
            "lane's creates answered in order, side by side with the other lanes'), and an "
            "event does not echo the `stream_id` of the response it belongs to, or names a "
            "`stream_id` no `response.create` on this connection gave. The checker takes an "
            "event without one for the oldest turn still waiting."
        ),
        why=(
            "A gateway that bridges each create to an upstream call and writes the events "
            "back drops the envelope field; one that keeps a single lane per socket answers "
            "the lanes one after the other without saying whose events are whose."
        ),
        clients=(
            "openai-python's `responses.connect()` hands every event of every lane to one "
            "reader with its `stream_id` (optional in its types): an application that runs two "
            "lanes tells their events apart by it alone. Not measured on a client: neither "
            "Codex CLI nor the SDKs' defaults open a second lane, so this is a warning."
        ),
        example=(
            'client message 3: {"type":"response.create","stream_id":"b",...}\n'
            'server message 9: {"type":"response.output_text.delta","delta":"Hi",...}'
        ),
        fix='server message 9: {"type":"response.output_text.delta","stream_id":"b",...}',
    ),
)


@WS_LANE.on(RULE)
def check(c: SessionChecker, msg: Message, obj: dict[str, Any], turn: LaneTurn | None) -> None:
    """An event that does not say its lane, or names one no create gave."""
    said = obj.get("stream_id")
    kind = obj.get("type")
    if isinstance(said, str):
        c.report(RULE, f"{kind}: stream_id {said!r} names no lane this connection asked for",
                 msg, "/stream_id")  # fmt: skip
    elif c.first_time(f"S088:{turn.number if turn else 0}"):
        taken = f"taken for turn {turn.number}" if turn is not None else "no turn waits"
        c.report(RULE, f"{kind} without stream_id while the client runs lanes ({taken})", msg)
