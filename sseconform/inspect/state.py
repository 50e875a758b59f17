"""What the live view knows about a stream: everything it shows, kept in bounded memory.

:class:`StreamView` takes reads (``feed(t, bytes)``) from any source - a recording played at
its timing, a pipe, the recorder - and keeps the header figures, the reassembled text,
reasoning and tool calls (arguments as partial JSON), the diagnostics found so far, the last
events with what they carried, and the gaps between events. Native dialects are translated
event by event, so each native event is shown beside the chunks it became.

Nothing here draws: :mod:`sseconform.inspect.render` turns a view into rich renderables, under
:attr:`StreamView.lock`, so a refresh thread never sees a half-applied event.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Any

import orjson

from sseconform import providers
from sseconform.findings import Finding
from sseconform.inspect.native import NativeParts
from sseconform.rules.base import Checker, Settings
from sseconform.rules.chat.checker import StreamChecker
from sseconform.rules.grammars import checker_for
from sseconform.rules.shared.rules import h001_http_error_status as h001
from sseconform.safetext import printable
from sseconform.sse import Event, SSEDecoder
from sseconform.sse.jsonarray import ElementDecoder
from sseconform.translate import Translator, detect_event, translator_for
from sseconform.wires import event_type
from sseconform.wires.chat import CHAT, summarize
from sseconform.wires.reassemble import Reassembler

__all__ = ["EventRow", "Stall", "StreamView", "summarize"]

#: Characters of text and reasoning kept per choice: far more than a screen shows.
KEEP_TEXT = 64 * 1024
#: Event rows and gaps remembered for the log and the timeline.
LOG_ROWS = 256
GAPS = 1024
STALLS = 64
#: Native events held while the dialect is unknown, as the translator does.
DETECT_WINDOW = 64
#: Bytes held, before the first events tell the dialect, to check them in its grammar.
UNCHECKED_MAX = 1024 * 1024
#: Characters of a non-2xx response's body shown.
ERROR_BODY = 4096


@dataclass(frozen=True, slots=True)
class EventRow:
    """One input event in the log: when, what it was, and what it carried."""

    frame: int
    t: float
    native: str | None  # the native event's name, for a translated stream
    summary: str


@dataclass(frozen=True, slots=True)
class Stall:
    frame: int
    t: float  # when the late event arrived
    gap: float


def _short(s: str, n: int = 28) -> str:
    s = printable(s)
    return repr(s if len(s) <= n else s[: n - 1] + "\u2026")


class StreamView:
    """The state of one stream as it arrives; feed it reads, read it under :attr:`lock`."""

    def __init__(
        self,
        source: str,
        *,
        dialect: str | None = None,
        stall: float = 1.0,
        settings: Settings | None = None,
        status: int | None = None,
        whole: bool = False,
    ) -> None:
        """``whole``: the body answers Gemini's non-streaming call, one object (shown as one
        chunk, checked as ``check --non-streaming`` does)."""
        if whole:
            settings = replace(settings or Settings(), whole=True)
            dialect = dialect or providers.GEMINI
        self.lock = threading.RLock()
        self._readers = 0
        self.source = source
        self.dialect = dialect  # None until the first events say
        self.stall = stall
        self.http_status = status
        self.model = Reassembler(keep=KEEP_TEXT, parse_arguments=True)
        self.bytes = 0
        self.events = 0  # input events (native ones for a native stream)
        self.chunks = 0  # chunk frames, after translation
        self.elapsed = 0.0
        self.first_byte: float | None = None
        self.ttft: float | None = None
        self.state = "waiting"  # waiting, streaming, ended, incomplete, interrupted
        self.end_reason: str | None = None
        self.log: deque[EventRow] = deque(maxlen=LOG_ROWS)
        self.gaps: deque[float] = deque(maxlen=GAPS)
        self.max_gap = 0.0
        self.stalls: deque[Stall] = deque(maxlen=STALLS)
        self.stall_count = 0
        self._last_t: float | None = None
        self._decoder: SSEDecoder | ElementDecoder = (
            ElementDecoder(single=True) if whole else SSEDecoder()
        )
        self._held: list[tuple[float, Event]] = []
        self._translator: Translator | None = None
        self._settings = settings
        self._checker: Checker | None = StreamChecker(settings)
        #: The body as read until the dialect is known, to check it in its own grammar.
        self._unchecked: list[bytes] | None = []
        self._unchecked_bytes = 0
        self.grammar: str | None = "chat"  # what the diagnostics are checked against
        self.native: NativeParts | None = None  # blocks or items, for Anthropic / Responses
        self.findings: list[Finding] = []
        self.suppressed = 0
        self.error_body = ""  # the start of a non-2xx response's body (not an event stream)
        self.logged = 0  # rows ever added to the log
        if dialect is not None:
            self._start(dialect)
        if status is not None and not 200 <= status < 300:
            # What `check` says of an error before the stream; the body is not an event stream.
            self._checker = None
            self.findings.append(
                Finding.of(h001.RULE, h001.message(status), offset=0)
            )  # fmt: skip

    # -- input -----------------------------------------------------------------------------

    @property
    def translated(self) -> bool:
        """The input is a native dialect, shown through sseconform's reference translation."""
        return self.dialect is not None and self.dialect != providers.OPENAI

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Hold the view still to draw it. A feeder that finds a reader waiting steps aside
        after its read (a lock is not fair: a busy feeder would take it straight back)."""
        self._readers += 1
        try:
            with self.lock:
                yield
        finally:
            self._readers -= 1

    def feed(self, t: float, data: bytes) -> None:
        """One read of the body, ``t`` seconds after the stream started."""
        try:
            self._feed(t, data)
        finally:
            if self._readers:
                time.sleep(0.001)

    def _feed(self, t: float, data: bytes) -> None:
        with self.lock:
            self.elapsed = max(self.elapsed, t)
            if not data:
                return
            if self.first_byte is None:
                self.first_byte = t
            if self.state == "waiting":
                self.state = "streaming"
            self.bytes += len(data)
            if self.http_status is not None and not 200 <= self.http_status < 300:
                if len(self.error_body) < ERROR_BODY:
                    self.error_body += data[: ERROR_BODY - len(self.error_body)].decode(
                        "utf-8", "replace"
                    )
                return
            if self._unchecked is not None and self._translator is None:
                self._unchecked.append(data)  # the grammar is not known yet
                self._unchecked_bytes += len(data)
                if self._unchecked_bytes > UNCHECKED_MAX:  # no event says: check it as chat
                    held, self._unchecked = self._unchecked, None
                    if self._checker is not None:
                        for piece in held:
                            self._checker.feed(piece)
                        self._take_diagnostics()
            elif self._checker is not None:
                self._checker.feed(data)
                self._take_diagnostics()
            for ev in self._decoder.feed(data):
                self._event(t, ev)

    def tick(self, t: float) -> None:
        """Time passes without data: the elapsed figure (and a growing stall) still move."""
        with self.lock:
            if t > self.elapsed:
                self.elapsed = t

    def finish(self, *, complete: bool = True, reason: str | None = None) -> None:
        """The body ended (``complete``), or stopped early for ``reason``."""
        with self.lock:
            for ev in self._decoder.finish():
                self._event(self.elapsed, ev)
            if self._translator is None:
                self._start(providers.OPENAI)
                self._release()
            assert self._translator is not None
            if self.translated:
                rows = [self._frame(frame) for frame in self._translator.finish()]
                if rows:
                    self._row(EventRow(self.events, self.elapsed, "(end)", "; ".join(rows)))
            self.model.finish()
            if self._checker is not None:
                self._checker.finish()
                self._take_diagnostics(final=True)
            if reason is not None and reason.startswith("interrupted"):
                self.state = "interrupted"
            else:
                self.state = "ended" if complete else "incomplete"
            self.end_reason = reason

    # -- events ----------------------------------------------------------------------------

    def _event(self, t: float, ev: Event) -> None:
        self.events += 1
        self._gap(t, ev.frame)
        if self._translator is None:
            self._held.append((t, ev))
            dialect = detect_event(ev)
            if dialect is None and len(self._held) < DETECT_WINDOW:
                return
            self._start(dialect or providers.OPENAI)
            self._release()
            return
        self._one(t, ev)

    def _start(self, dialect: str) -> None:
        self.dialect = dialect
        self._translator = translator_for(dialect)
        if NativeParts.tracks(dialect):
            self.native = NativeParts(dialect)
        grammar = providers.DIALECT_GRAMMAR.get(dialect)
        early = self._unchecked is None  # a body with no event for long: checked as chat
        held, self._unchecked = self._unchecked or [], None
        if self._checker is None or early:
            return  # an error before the stream (nothing to check), or checked already
        if grammar is None:  # a dialect with no grammar of its own to check
            self._checker = None
            self.grammar = None
            return
        if grammar != "chat":
            self._checker = checker_for(grammar, self._settings)
            self.grammar = grammar
        for data in held:
            self._checker.feed(data)
        self._take_diagnostics()

    def _release(self) -> None:
        held, self._held = self._held, []
        for t, ev in held:
            self._one(t, ev)

    def _one(self, t: float, ev: Event) -> None:
        if self.native is not None:
            self.native.feed(ev)
        if not self.translated:
            self._chunk_event(t, ev)
            return
        assert self._translator is not None
        native = ev.event or event_type(ev.data) or "message"
        rows: list[str] = []
        for frame in self._translator.feed(ev):
            rows.append(self._frame(frame, t))
        summary = "; ".join(rows) if rows else "(no chunk)"
        self._row(EventRow(ev.frame, t, native, summary))

    def _chunk_event(self, t: float, ev: Event) -> None:
        data = ev.data
        if data.strip() == "[DONE]":
            self.model.feed_event(data)
            self._row(EventRow(ev.frame, t, None, "[DONE]"))
            return
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            self._row(EventRow(ev.frame, t, None, f"not JSON: {_short(data, 40)}"))
            return
        if not isinstance(obj, dict):
            self._row(EventRow(ev.frame, t, None, f"not an object: {_short(data, 40)}"))
            return
        self.chunks += 1
        self._fold(obj, t)
        self._row(EventRow(ev.frame, t, None, summarize(obj)))

    def _row(self, row: EventRow) -> None:
        self.log.append(row)
        self.logged += 1

    def _frame(self, frame: object, t: float | None = None) -> str:
        if frame == "[DONE]":
            self.model.feed_event("[DONE]")
            return "[DONE]"
        if isinstance(frame, dict):
            self.chunks += 1
            self._fold(frame, self.elapsed if t is None else t)
            return summarize(frame)
        return "(frame)"

    def _fold(self, obj: dict[str, Any], t: float) -> None:
        if self.ttft is None and CHAT.carries_token(obj):
            self.ttft = t
        self.model.feed_obj(obj)

    def _gap(self, t: float, frame: int) -> None:
        last = self._last_t
        self._last_t = t
        if last is None:
            return
        gap = t - last
        self.gaps.append(gap)
        if gap > self.max_gap:
            self.max_gap = gap
        if gap >= self.stall:
            self.stall_count += 1
            self.stalls.append(Stall(frame, t, gap))

    def _take_diagnostics(self, final: bool = False) -> None:
        checker = self._checker
        assert checker is not None
        if final:  # finish() sorts and adds the end-of-stream findings: take them all again
            self.findings = list(checker.findings)
            self.suppressed = sum(checker.suppressed.values())
        elif len(checker.findings) > len(self.findings):
            self.findings.extend(checker.findings[len(self.findings) :])

    # -- reading ---------------------------------------------------------------------------

    @property
    def current_gap(self) -> float:
        """Seconds since the last event (a stall in progress shows here)."""
        return 0.0 if self._last_t is None else max(0.0, self.elapsed - self._last_t)

    @property
    def finish_state(self) -> str:
        """One phrase: how the stream ended (or how far it got)."""
        m = self.model
        reasons = sorted({c.finish_reason for c in m.choices.values() if c.finish_reason})
        bits: list[str] = []
        if m.error is not None:
            bits.append("error frame")
        if reasons:
            bits.append("finish " + printable("/".join(reasons)))
        if m.done:
            bits.append("[DONE]")
        elif self.state in ("ended", "incomplete", "interrupted"):
            bits.append("no [DONE]")
        return ", ".join(bits) if bits else "-"
