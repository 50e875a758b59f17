"""What every grammar's checker shares: decoding, the per-code cap, selection, locations.

A grammar (chat chunks, Anthropic Messages events, Responses events) subclasses
:class:`Checker` and supplies ``_on_event`` (one decoded event) and ``_end_of_stream``. The
base feeds bytes through the SSE decoder, holds wire anomalies until the event they sit in is
dispatched (so they are located at its start, the one rule for locations), caps diagnostics
per code (counting what it holds back) and sorts them into stream order at the end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import orjson

from sseconform.rules.catalog import RULES, Rule, Severity
from sseconform.rules.delta_template import DeltaTemplate, make_template
from sseconform.rules.finding import Finding, printable
from sseconform.rules.shared import hooks as shared
from sseconform.rules.shared.hooks import ANOMALIES
from sseconform.sse import decoder as sse
from sseconform.sse.decoder import Anomaly, Event, SSEDecoder
from sseconform.sse.lane import Lane, Waste
from sseconform.sse.template import Run

DEFAULT_MAX_PER_CODE = 50
DEFAULT_MAX_ARGUMENTS = 64 * 1024 * 1024


@dataclass(slots=True)
class Settings:
    """What to report: selection by code, family prefix or invariant name."""

    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    max_per_code: int = DEFAULT_MAX_PER_CODE
    max_line: int = sse.DEFAULT_MAX_LINE
    max_event: int = sse.DEFAULT_MAX_EVENT
    max_arguments: int = DEFAULT_MAX_ARGUMENTS
    #: Skip re-parsing frames that differ from a checked one only in one string literal.
    #: Off gives the very same diagnostics, slower; tests compare the two.
    memo: bool = True
    #: A Responses stream resumed with ``starting_after`` (its first event mid-sequence):
    #: True when declared (``--resumed``) or read from a recording's URL, None to tell it
    #: from the first sequence_number.
    resumed: bool | None = None
    #: The ``starting_after`` the resumed stream was asked for: its first event is the next.
    starting_after: int | None = None
    #: The request forced a named function (``tool_choice: {"type": "function", ...}``):
    #: OpenAI then ends the call with ``finish_reason: "stop"`` (F007 does not apply). Read
    #: from a recording's request; None when nothing says.
    forced_function: bool | None = None
    #: The body answers a non-streaming call (Gemini's ``:generateContent``): one JSON object,
    #: not a stream. Declared (``--non-streaming``) or read from a recording's URL, never
    #: guessed from the body (a stream that is one bare object is not an event stream).
    whole: bool = False

    def enabled_codes(self) -> frozenset[str]:
        def match(code: str, pats: list[str]) -> bool:
            rule = RULES[code]
            for p in pats:
                p = p.strip()
                if p.upper() in ("ALL", "") or code.startswith(p.upper()):
                    return True
                if p in (rule.name, rule.invariant):
                    return True
            return False

        # the codes loaded: a checker's own are (it loads its grammar's rules as it is made)
        codes = [c for c in RULES.registered() if not self.select or match(c, self.select)]
        return frozenset(c for c in codes if not match(c, self.ignore))


class Checker:
    """Check one stream: ``feed(bytes)`` as it arrives, then ``finish()`` for the diagnostics."""

    #: The grammar's name (``chat``, ``anthropic``, ``responses``).
    grammar: ClassVar[str] = ""
    #: Templates in a row that no delta used, before only one candidate in TEMPLATE_EVERY is
    #: made one (a stream whose every delta also differs elsewhere: a counter, a timestamp).
    TEMPLATE_WASTE: ClassVar[int] = Waste.LIMIT
    TEMPLATE_EVERY: ClassVar[int] = Waste.EVERY
    #: Shared rules this grammar never reports: what its own provider always sends (Gemini
    #: writes CRLF), so a finding would be about the provider, never the gateway.
    PROVIDER_SENDS: ClassVar[frozenset[str]] = frozenset()
    #: Whether the byte lane reads events framed with CRLF throughout (as Gemini's are).
    LANE_CRLF: ClassVar[bool] = False

    def __init__(self, settings: Settings | None = None) -> None:
        RULES.load(self.grammar)  # its rules, and only its grammar's, registered
        self.settings = settings or Settings()
        self._enabled = self.settings.enabled_codes() - self.PROVIDER_SENDS
        #: the shared moments' enabled checks (W, J, H: rules/shared/hooks.py)
        self.shared = shared.HOOKS.table(self._enabled)
        #: wire anomaly kind -> its rule's code and message, as this grammar words it
        self._wire = {
            kind: (a.rule.code, a.message_for(self.grammar)) for kind, a in ANOMALIES.items()
        }
        self._cap = self.settings.max_per_code
        self.findings: list[Finding] = []
        self.suppressed: dict[str, int] = {}
        self._counts: dict[str, int] = {}
        self._decoder = SSEDecoder(
            max_line=self.settings.max_line, max_event=self.settings.max_event
        )
        self.bytes = 0
        self.frames = 0
        self._last: Event | None = None
        self._once: set[str] = set()
        self._finished = False
        self._head_bytes = b""  # the first bytes, to say what a body that is not SSE looks like
        self._emitted = 0  # every _emit call, shown or not: "did this frame find anything?"
        self._pending: list[Anomaly] = []  # wire anomalies whose event is not dispatched yet
        self._held: dict[str, int] = {}  # how many of each code are pending
        # the last delta that went the full way and found nothing, cut around its value: a
        # grammar keeps it (delta_template.py) and says what a delta that fits does
        # (_template_take); such deltas may be matched on the bytes, never decoded (the lane)
        self._tmpl: DeltaTemplate | None = None
        self._waste = Waste(self.TEMPLATE_WASTE, self.TEMPLATE_EVERY)
        self._lane: Lane | None = None
        if self.settings.memo:
            limit = min(self.settings.max_line, self.settings.max_event) - 256
            self._lane = Lane(self._decoder, self, limit=limit, crlf=self.LANE_CRLF)
        self.lane_events = 0  # events the lane took (for the benchmarks and tests)

    # -- plumbing --------------------------------------------------------------------------

    def _emit(
        self,
        code: str,
        message: str,
        ev: Event | None,
        pointer: str = "",
        *,
        line: int | None = None,
        offset: int | None = None,
        frame: int | None = None,
        severity: Severity | None = None,
    ) -> None:
        self._emitted += 1
        if code not in self._enabled:
            if code not in RULES:  # a mistyped code is a bug, never a finding dropped silently
                raise ValueError(f"no rule {code!r}: a checker emitted a code the catalog lacks")
            return
        n = self._counts.get(code, 0) + 1
        self._counts[code] = n
        if n > self._cap:
            self.suppressed[code] = self.suppressed.get(code, 0) + 1
            return
        if ev is not None:
            frame = ev.frame if frame is None else frame
            line = ev.line if line is None else line
            offset = ev.offset if offset is None else offset
        self.findings.append(
            Finding.of_rule(
                code,
                printable(message),
                frame,
                line or 0,
                offset or 0,
                printable(pointer),
                severity,
            )
        )

    # -- what every grammar reads the same way ----------------------------------------------

    def _data_lines(self, ev: Event) -> None:
        """An event whose data came on several `data:` lines (joined, as parsers do)."""
        if ev.data_lines > 1:
            shared.MULTI_LINE_DATA.fire(self.shared, self, ev)

    def _json_object(self, ev: Event) -> dict[str, Any] | None:
        """The event's data as a JSON object, or None when it is not one: empty, a keep-alive
        sent as data, not JSON, or JSON but not an object (each a shared moment). A grammar
        reads its own sentinels (``[DONE]``) before asking."""
        data = ev.data
        if not data:
            shared.EMPTY_DATA.fire(self.shared, self, ev)
            return None
        if data[0] == ":":
            shared.KEEPALIVE_DATA.fire(self.shared, self, ev)
            return None
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError as exc:
            shared.NOT_JSON.fire(self.shared, self, ev, exc)
            return None
        if type(obj) is not dict:
            shared.NOT_OBJECT.fire(self.shared, self, ev, obj)
            return None
        return obj

    def _schema_error(self, ev: Event, message: str, pointer: str = "") -> None:
        """The data breaks its schema where no grammar rule owns the fault."""
        shared.SCHEMA_VIOLATION.fire(self.shared, self, ev, message, pointer)

    # -- what a rule's check reports through (rules/hooks.py) --------------------------------

    def report(
        self,
        rule: Rule,
        message: str,
        ev: Event | None,
        pointer: str = "",
        *,
        severity: Severity | None = None,
    ) -> None:
        """A finding of ``rule``, located at the start of ``ev`` (at the rule's severity
        unless its check knows less than the rule assumes: ``severity``)."""
        self._emit(rule.code, message, ev, pointer, severity=severity)

    def report_about_file(self, rule: Rule, message: str, offset: int = 0) -> None:
        """A finding about the HTTP response or the recording, not a place in the body
        (line 0; ``offset``: the body bytes read before it, where that matters)."""
        self._emit(rule.code, message, None, line=0, offset=offset)

    def report_at(self, rule: Rule, message: str, offset: int, line: int) -> None:
        """A finding at a place in the body that is in no event (a byte between two of a
        JSON array's elements, say)."""
        self._emit(rule.code, message, None, line=line, offset=offset)

    def report_at_end(self, rule: Rule, message: str) -> None:
        """A finding of ``rule`` about the end of the stream (at its last event)."""
        self._at_end(rule.code, message)

    def first_time(self, key: str) -> bool:
        """True the first time ``key`` is asked about: what a rule says once per stream."""
        return self._once_key(key)

    def _once_key(self, key: str) -> bool:
        """True the first time ``key`` is seen (bounded: keys are capped with their code)."""
        if key in self._once:
            return False
        if len(self._once) < 10_000:
            self._once.add(key)
        return True

    def _anomalies(self, found: list[Anomaly]) -> None:
        """Hold wire anomalies until the event they sit in is dispatched, to locate them at
        its start. Past the per-code cap an anomaly is only counted: the ones held before
        it fill the cap, so what is shown does not change, and the hold stays bounded."""
        pending = self._pending
        held = self._held
        wire = self._wire
        for a in found:
            code = wire[a.kind][0]
            if code not in self._enabled:
                continue
            n = held.get(code, 0)
            if self._counts.get(code, 0) + n >= self._cap:
                self._emitted += 1
                self.suppressed[code] = self.suppressed.get(code, 0) + 1
                continue
            held[code] = n + 1
            pending.append(a)

    def _place(self, ev: Event | None) -> None:
        """Report the held anomalies that lie before the end of ``ev`` (all of them when
        ``ev`` is None, at the end of the body): one inside ``ev`` at the start of ``ev``,
        saying where in it; one outside every event (a comment between events, an ``id:``
        only block, the unterminated tail, the BOM) at its own line, the start of its block."""
        keep: list[Anomaly] = []
        for a in self._pending:
            if ev is not None and a.offset >= ev.end:
                keep.append(a)
                continue
            code, msg = self._wire[a.kind]
            self._held[code] -= 1
            text = msg.format(a.detail) if "{" in msg else msg
            if ev is not None and a.offset >= ev.offset:
                if a.offset != ev.offset:
                    text += f" (line {a.line}, byte {a.offset})"
                self._emit(code, text, ev)
            else:
                self._emit(code, text, None, line=a.line, offset=a.offset, frame=a.frame)
        self._pending = keep

    # -- input -----------------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Check the next bytes of the body."""
        if len(self._head_bytes) < 64:
            self._head_bytes += data[: 64 - len(self._head_bytes)]
        self.bytes += len(data)
        if self._lane is not None:
            self._lane.feed(data)
        else:
            self._decode(data)

    def _decode(self, data: bytes) -> None:
        dec = self._decoder
        events = dec.feed(data)
        if dec.anomalies:
            self._anomalies(dec.take_anomalies())
        if events:
            self._events(events)

    # -- the lane (sse/lane.py): template deltas matched on the bytes -----------------------
    #
    # Most of a long stream is the next delta of the string being streamed (a content or
    # arguments chunk, an Anthropic block delta, a Responses text delta), which the grammar's
    # delta template (delta_template.py) takes without a parse. The lane goes one step
    # further: between events, with nothing held, an event written in the plain form
    # (``event: name`` if it has one, ``data: ``, LF, a blank line, as the decoder reads it
    # without a remark) that fits the template is taken from the bytes, never decoded; the
    # decoder is told how many bytes, lines and events it skipped, so every later place is
    # true. Every other event goes through the decoder as before, in order. A carriage
    # return anywhere hands the rest of the body to the decoder alone.

    def lane_template(self) -> DeltaTemplate | None:
        """The template the lane may match: none while wire anomalies wait for their event
        (they are placed when it is dispatched)."""
        return None if self._pending else self._tmpl

    def lane_take(self, run: Run) -> int:
        t = self._tmpl
        assert t is not None
        return self._template_take(t, run)

    def lane_took(self, n: int, last: bytes) -> None:
        """Count what the lane took, and keep the last event's place for what is said about
        the end of the stream (only its place is read: its id, which the decoder would have
        carried over, is not kept)."""
        t = self._tmpl
        assert t is not None
        dec = self._decoder
        line, offset = dec.position()
        start = offset - len(last) - len(t.sep)
        data = last[len(t.prefix) :].decode()
        ev = Event(data, t.event, None, None, dec.frame, line - t.lines, start, 1)
        ev.end = offset
        self._last = ev
        t.taken += n
        self.frames += n
        self.lane_events += n

    def lane_slow(self, data: bytes) -> None:
        self._decode(data)

    # -- delta templates (delta_template.py), what the grammars share ------------------------

    def _by_template(self, ev: Event) -> bool:
        """True when ``ev`` fits the template held and the grammar took it: nothing more to
        do. Else the template is dropped, and ``ev`` takes the full path."""
        t = self._tmpl
        if t is not None and ev.event == t.event and ev.data_lines == 1:
            got = t.match(ev.data)
            if got is not None and self._template_take(t, Run.one(*got)):
                return True
        self._drop_template()
        return False

    def _drop_template(self) -> None:
        t = self._tmpl
        if t is not None:
            self._waste.dropped(bool(t.hits or t.taken))
            self._tmpl = None

    def _learn(
        self,
        ev: Event,
        obj: dict[str, Any],
        path: tuple[str | int, ...],
        target: Any,
        *,
        seq: bool = False,
        numbers: str | None = None,
    ) -> None:
        """Make ``ev`` (a delta that went the full way and found nothing: the grammar says
        when) the template of the next ones (``numbers``: the top-level key whose whole
        numbers are holes too, as Gemini's growing usage counts). While templates keep going
        unused, only one candidate in ``TEMPLATE_EVERY`` is tried: making one costs a probe
        parse."""
        if not self._waste.worth():
            return
        eol = self._lane.eol if self._lane is not None else b"\n"
        self._tmpl = make_template(
            ev.data, obj, ev.event, path, target, seq=seq, numbers=numbers, eol=eol
        )

    def _template_take(self, t: DeltaTemplate, run: Run) -> int:
        """Take the first of a run of deltas that fit ``t`` as the full path would, in
        order: how many it took; those it did not take, it did not touch, and the full path
        sees them."""
        return 0

    def _events(self, events: list[Event]) -> None:
        self.frames += len(events)
        self._last = events[-1]
        on_event = self._on_event
        if self._pending:
            for ev in events:
                if self._pending:
                    self._place(ev)
                on_event(ev)
            return
        for ev in events:
            on_event(ev)

    def feed_all(self, chunks: Iterable[bytes]) -> None:
        for c in chunks:
            self.feed(c)

    @property
    def json_framed(self) -> bool:
        """The body is framed as JSON (Gemini's array, or one object), not as SSE: a body
        with no event in it is then no W018 (the framing's own rule says what is wrong)."""
        return False

    def finish(self) -> list[Finding]:
        """End of body: stream-level rules, then all diagnostics in stream order."""
        if self._finished:
            return self.findings
        self._finished = True
        if self._lane is not None:
            rest = self._lane.close()
            if rest:
                self._decode(rest)
        dec = self._decoder
        events = dec.finish()
        self._anomalies(dec.take_anomalies())  # first: the last event's own lines are in it
        if events:
            self._events(events)
        self._place(None)
        if self.frames == 0 and self.bytes and not self.json_framed:
            shared.NOT_SSE.fire(self.shared, self, self.bytes, _looks_like(self._head_bytes))
        else:  # a body that is not SSE has no stream to end: what would follow is W018's
            self._end_of_stream()
        self.findings.sort(key=lambda d: (d.offset, d.line))
        return self.findings

    def _at_end(self, code: str, message: str) -> None:
        """A finding about the end of the stream: at the last event's start, or at the start
        of the body when there is no event."""
        last = self._last
        if last is None:
            self._emit(code, message, None, frame=None, line=1, offset=0)
        else:
            self._emit(code, message, last)

    # -- what each grammar supplies ---------------------------------------------------------

    def _on_event(self, ev: Event) -> None:
        raise NotImplementedError

    def _end_of_stream(self) -> None:
        """Stream-level rules, once, after the last event."""


def _looks_like(head: bytes) -> str:
    """A word for what a body that is not SSE seems to be, from its first bytes."""
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if text in (b"{", b"["):
        return "JSON"
    if text == b"<":
        return "HTML or XML"
    return "text" if head[:64].isascii() else "binary data"
