"""A WebSocket session of the Responses API checked: the S rules over each turn's events,
however they travelled, and the rules of what WebSocket adds (the moments in
:data:`WS_HOOKS`, the ``websocket`` invariant).

Each client ``response.create`` opens a turn: the server's JSON messages until the next one
are that turn's events, fed to a Responses checker of their own as the SSE events they
would be (``event: T`` + ``data: JSON``), so the grammar's rules hold over the socket as they
hold over HTTP; the rules only SSE has (its framing, ``event:`` names, ``[DONE]``) are left
out of that checker. Its findings are moved to the message they are about: ``frame`` is the
session's message number, ``offset`` where the message's first frame starts in the server's
bytes, ``line`` the recording's line holding it. Memory: one turn's checker state at a time.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any, ClassVar

from sseconform.rules.base import Checker, Settings
from sseconform.rules.catalog import RULES, Rule
from sseconform.rules.finding import Finding
from sseconform.rules.responses.hooks import (
    WS_BROKEN,
    WS_CLOSED,
    WS_ERROR,
    WS_FRAME,
    WS_HOOKS,
    WS_LANE,
    WS_MESSAGE,
    WS_TURN_END,
    WS_UNASKED,
)
from sseconform.rules.responses.rules import (
    s060_done_sentinel_after_terminal,
    s061_done_sentinel_before_terminal,
    s070_event_name_mismatch,
    s071_event_name_missing,
)
from sseconform.rules.responses.turn import LaneTurn
from sseconform.websocket.frames import Broken, Closed, Item, Message, sse_event

if TYPE_CHECKING:
    from sseconform.rules.hooks import Table

__all__ = ["LaneTurn", "SessionChecker"]

#: The rules a turn's events are not checked by: SSE's own (its framing, ``event:`` names,
#: ``[DONE]``), which a WebSocket message has no place for.
_SSE_ONLY = frozenset(
    m.RULE.code
    for m in (
        s060_done_sentinel_after_terminal,
        s061_done_sentinel_before_terminal,
        s070_event_name_mismatch,
        s071_event_name_missing,
    )
)
#: The events that end a turn's answer.
TERMINAL = frozenset({"response.completed", "response.failed", "response.incomplete", "error"})
#: What may still follow a turn's ``error`` event: OpenAI's service sends the error, then
#: ``response.failed`` with the same failure.
_AFTER_ERROR = frozenset({"response.failed", "response.completed", "response.incomplete"})


class SessionChecker:
    """Check a session's items (:mod:`sseconform.websocket.frames`) as they come: ``feed``
    each, then ``finish``. ``base`` is the grammar's checker class each turn's events go
    through (the Responses grammar, or a profile of it).

    A connection may run lanes side by side (``stream_id``: the creates of one lane answered
    in order, each event echoing its lane's id): each event goes to the turn its lane is
    answering, one checker per turn; without ``stream_id`` there is one lane."""

    grammar: ClassVar[str] = "responses"

    def __init__(self, base: type[Checker], settings: Settings | None = None) -> None:
        RULES.load(base.grammar)
        self.settings = settings or Settings()
        self.grammar_name = base.grammar
        self._enabled = self.settings.enabled_codes()
        self._turn_class = type(
            f"{base.__name__}OverWebSocket",
            (base,),
            {
                "PROVIDER_SENDS": base.PROVIDER_SENDS | _SSE_ONLY | _wire_codes(),
                "OVER_WEBSOCKET": True,
            },
        )
        self.at: Table = WS_HOOKS.table(self._enabled)
        self.findings: list[Finding] = []
        self.suppressed: dict[str, int] = {}
        self._counts: dict[str, int] = {}
        self._once: set[str] = set()
        #: each lane's turns, in the order asked: the first is the one being answered
        self.lanes: dict[str | None, deque[LaneTurn]] = {}
        #: the turn the event being checked belongs to (what a rule's check reads)
        self.current: LaneTurn | None = None
        #: Response ids this connection's answers carried: what a later turn may name.
        self.response_ids: set[str] = set()
        self.last: Message | None = None  # the last server message
        self.frames = 0  # server messages
        self.bytes = 0
        self.turns = 0

    @property
    def waiting(self) -> list[LaneTurn]:
        """The turns whose answer has not ended, in the order asked."""
        return sorted((t for q in self.lanes.values() for t in q if t.waiting),
                      key=lambda t: t.number)  # fmt: skip

    # -- feeding --------------------------------------------------------------------------

    def feed(self, item: Item) -> None:
        if isinstance(item, Broken):
            WS_BROKEN.fire(self.at, self, item)
        elif isinstance(item, Closed):
            self._closed(item)
        elif item.by == "client":
            obj = item.json()
            if item.number and obj is not None:
                self._create(obj)
        elif item.number == 0:
            WS_FRAME.fire(self.at, self, item)
        else:
            self._server(item)

    def _create(self, obj: dict[str, Any]) -> None:
        lane = obj.get("stream_id") if isinstance(obj.get("stream_id"), str) else None
        queue = self.lanes.setdefault(lane, deque())
        while queue and not queue[0].waiting:  # a new turn: the lane's last one is over
            self._end_turn(queue.popleft())
        if len(self.lanes) > 1000 or len(queue) > 1000:
            return  # a hostile client's lanes: bounded, the rest unchecked
        chained = obj.get("previous_response_id")
        self.turns += 1
        turn = LaneTurn(self.turns, lane, self._turn_class(self.settings))
        turn.chained = {chained} if isinstance(chained, str) else set()
        queue.append(turn)

    def _route(self, obj: dict[str, Any], msg: Message) -> LaneTurn | None:
        """The turn an event answers: its lane's (by its ``stream_id``), else the one lane's
        when the client named none; None when no turn asked for it."""
        kind = obj.get("type")
        said = obj.get("stream_id")
        lane: str | None
        if isinstance(said, str):
            lane = said
        elif set(self.lanes) <= {None}:
            lane = None
        else:  # lanes named, and no echo: the oldest waiting turn, and say so
            waiting = self.waiting
            turn = waiting[0] if waiting else None
            WS_LANE.fire(self.at, self, msg, obj, turn)
            if turn is None:
                return None
            lane = turn.lane
        queue = self.lanes.get(lane)
        while queue:
            head = queue[0]
            if head.waiting or (head.errored and kind in _AFTER_ERROR):
                return head
            if len(queue) == 1:
                return None  # after its terminal event, before the lane's next create
            self._end_turn(queue.popleft())
        if isinstance(said, str) and lane not in self.lanes:
            WS_LANE.fire(self.at, self, msg, obj, None)
        return None

    def _server(self, msg: Message) -> None:
        self.frames += 1
        self.bytes += len(msg.data)
        self.last = msg
        WS_FRAME.fire(self.at, self, msg)
        obj = msg.json()
        WS_MESSAGE.fire(self.at, self, msg, obj)
        if obj is None:
            return
        turn = self.current = self._route(obj, msg)
        if turn is None:
            WS_UNASKED.fire(self.at, self, msg, obj)
            return
        kind = obj.get("type")
        turn.answering = True
        if isinstance(kind, str) and len(turn.kinds) < 1000:
            turn.kinds.add(kind)
        if kind == "error":
            if len(turn.errors) < 100:
                turn.errors.append((msg, obj))
            WS_ERROR.fire(self.at, self, msg, obj)
        response = obj.get("response")
        rid = response.get("id") if isinstance(response, dict) else None
        if isinstance(rid, str) and len(self.response_ids) < 10_000:
            self.response_ids.add(rid)
        turn.fed.append(msg)
        turn.checker.feed(sse_event(msg.data, obj))
        if kind in TERMINAL:
            turn.waiting = False
        turn.errored = kind == "error"

    def _closed(self, closed: Closed) -> None:
        WS_CLOSED.fire(self.at, self, closed)

    def _end_turn(self, turn: LaneTurn) -> None:
        """A turn's checker finished and its findings moved to their messages."""
        self.current = turn
        WS_TURN_END.fire(self.at, self, turn)
        for f in turn.checker.finish():
            self._add(_moved(f, turn.fed))
        for code, n in turn.checker.suppressed.items():
            self.suppressed[code] = self.suppressed.get(code, 0) + n

    def finish(self) -> list[Finding]:
        """The session's end: each lane's last turns' findings, every finding in message
        order."""
        for queue in self.lanes.values():
            while queue:
                self._end_turn(queue.popleft())
        self.findings.sort(key=lambda f: (f.offset or 0, f.frame or 0))
        return self.findings

    # -- what the WebSocket rules report through -------------------------------------------

    def report(self, rule: Rule, message: str, msg: Message | None, pointer: str = "") -> None:
        """A finding at a server message (None: at the last one, or the session's start)."""
        at = msg or self.last
        if at is None:
            self._emit(Finding.of_rule(rule.code, message, None, 1, 0, pointer))
        else:
            self._emit(Finding.of_rule(rule.code, message, at.number, at.line, at.offset, pointer))

    def report_at(self, rule: Rule, message: str, offset: int, line: int) -> None:
        """A finding at a place in the server's bytes that starts no message (a Close, a
        frame that cannot be read)."""
        self._emit(Finding.of_rule(rule.code, message, None, line, max(offset, 0)))

    def first_time(self, key: str) -> bool:
        """True the first time ``key`` is asked about (a rule said once per turn)."""
        if key in self._once:
            return False
        if len(self._once) < 10_000:
            self._once.add(key)
        return True

    def _emit(self, f: Finding) -> None:
        if f.code not in self._enabled:
            return
        self._add(f)

    def _add(self, f: Finding) -> None:
        n = self._counts.get(f.code, 0) + 1
        self._counts[f.code] = n
        if n > self.settings.max_per_code:
            self.suppressed[f.code] = self.suppressed.get(f.code, 0) + 1
            return
        self.findings.append(f)


def _wire_codes() -> frozenset[str]:
    """The shared rules about SSE's framing (W), which a message has none of."""
    return frozenset(c for c in RULES.registered() if c[0] == "W")


def _moved(f: Finding, fed: list[Message]) -> Finding:
    """A turn checker's finding at the message its event was (its frame is the event's
    place among the turn's); an end-of-stream finding without a frame at the turn's last."""
    if f.line == 0 and f.frame is None:  # about the file, not a place
        return f
    at = fed[f.frame - 1] if f.frame is not None and 0 < f.frame <= len(fed) else None
    if at is None:
        at = fed[-1] if fed else None
    if at is None:
        return Finding.of_rule(f.code, f.message, None, 1, 0, f.pointer, f.severity)
    return Finding.of_rule(f.code, f.message, at.number, at.line, at.offset, f.pointer, f.severity)
