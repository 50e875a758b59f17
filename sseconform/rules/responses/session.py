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
from sseconform.websocket.frames import Broken, Closed, Item, Message, sse_event

if TYPE_CHECKING:
    from sseconform.rules.hooks import Table

__all__ = ["SessionChecker"]

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
    through (the Responses grammar, or a profile of it)."""

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
        self._turn: Checker | None = None
        self._fed: list[Message] = []  # the current turn's events, in the order fed
        self._errored = False  # the last event was an error (a response.failed may follow)
        #: A ``response.create`` was sent and its answer has not ended (no terminal event).
        self.in_turn = False
        #: The turn's first event (its answer began).
        self.answering = False
        #: Response ids this connection's answers carried: what a later turn may name.
        self.response_ids: set[str] = set()
        #: The response the current turn is chained to (its ``previous_response_id``).
        self.chained: set[str] = set()
        #: The current turn's event types, and its ``error`` events (message, object).
        self.turn_kinds: set[str] = set()
        self.turn_errors: list[tuple[Message, dict[str, Any]]] = []
        self.last: Message | None = None  # the last server message
        self.frames = 0  # server messages
        self.bytes = 0
        self.turns = 0

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
        self._end_turn()
        chained = obj.get("previous_response_id")
        self.chained = {chained} if isinstance(chained, str) else set()
        self.turns += 1
        self._turn = self._turn_class(self.settings)
        self._fed = []
        self.in_turn, self.answering, self._errored = True, False, False

    def _server(self, msg: Message) -> None:
        self.frames += 1
        self.bytes += len(msg.data)
        self.last = msg
        WS_FRAME.fire(self.at, self, msg)
        obj = msg.json()
        WS_MESSAGE.fire(self.at, self, msg, obj)
        if obj is None:
            return
        kind = obj.get("type")
        after_error = self._errored and kind in _AFTER_ERROR
        if not self.in_turn and not after_error:
            WS_UNASKED.fire(self.at, self, msg, obj)
            return
        self.answering = True
        if isinstance(kind, str) and len(self.turn_kinds) < 1000:
            self.turn_kinds.add(kind)
        if kind == "error":
            if len(self.turn_errors) < 100:
                self.turn_errors.append((msg, obj))
            WS_ERROR.fire(self.at, self, msg, obj)
        response = obj.get("response")
        rid = response.get("id") if isinstance(response, dict) else None
        if isinstance(rid, str) and len(self.response_ids) < 10_000:
            self.response_ids.add(rid)
        assert self._turn is not None
        self._fed.append(msg)
        self._turn.feed(sse_event(msg.data, obj))
        if kind in TERMINAL:
            self.in_turn = False
        self._errored = kind == "error"

    def _closed(self, closed: Closed) -> None:
        WS_CLOSED.fire(self.at, self, closed)

    def _end_turn(self) -> None:
        """The turn's checker finished and its findings moved to their messages."""
        turn, fed = self._turn, self._fed
        if turn is None:
            return
        WS_TURN_END.fire(self.at, self)
        self.turn_kinds, self.turn_errors = set(), []
        self._turn, self._fed = None, []
        for f in turn.finish():
            self._add(_moved(f, fed))
        for code, n in turn.suppressed.items():
            self.suppressed[code] = self.suppressed.get(code, 0) + n

    def finish(self) -> list[Finding]:
        """The session's end: the last turn's findings, every finding in message order."""
        self._end_turn()
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
