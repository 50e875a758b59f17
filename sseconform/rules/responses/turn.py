"""One turn of a WebSocket session as the session checker keeps it: a ``response.create``,
its lane, and what its answer held so far (:mod:`.session`; the moments' checks read it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sseconform.rules.base import Checker
    from sseconform.websocket.frames import Message

__all__ = ["LaneTurn"]


@dataclass
class LaneTurn:
    """One ``response.create`` and its answer, on its lane (``stream_id``; None: the
    connection's one lane when the client names none)."""

    number: int
    lane: str | None
    checker: Checker
    #: the response it continues (its ``previous_response_id``)
    chained: set[str] = field(default_factory=set)
    fed: list[Message] = field(default_factory=list)  # its events, in the order fed
    waiting: bool = True  # its terminal event has not come
    answering: bool = False  # its first event came
    errored: bool = False  # its last event was an error (a response.failed may follow)
    kinds: set[str] = field(default_factory=set)  # its event types
    errors: list[tuple[Message, dict[str, Any]]] = field(default_factory=list)
