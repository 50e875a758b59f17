"""What a stream means, with where each piece of it came from.

:class:`Content` folds a stream (native or chunks) into the reassembled answer - text,
reasoning, tool calls, finish reasons, usage, error - and remembers, for every piece of text
or arguments, the frame (and its byte offset) that carried it. A difference between two
streams can then be located in both: "char 120 of the text: the upstream sent it in event 14
at byte 2301; the gateway's frame 9 at byte 1877 carries something else".

Native streams are translated event by event with sseconform's reference translator, so a
location in a native stream is the native event that produced the chunk.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from sseconform import providers
from sseconform.sse import Event, SSEDecoder
from sseconform.sse.jsonarray import ElementDecoder
from sseconform.translate import Translator, detect_event, translator_for
from sseconform.wires.reassemble import Reassembler
from sseconform.wires.state import State, StateFolder

__all__ = ["Content", "Loc", "content_of"]

DETECT_WINDOW = 64


@dataclass(frozen=True, slots=True)
class Loc:
    """A place in a stream: the SSE event (frame number, 1-based) and its byte offset."""

    frame: int
    offset: int

    def __str__(self) -> str:
        return f"frame {self.frame} (byte {self.offset})"


@dataclass
class Pieces:
    """Where each piece of one growing string started: ``starts[i]`` chars came before
    the piece that ``locs[i]`` carried."""

    starts: list[int] = field(default_factory=list)
    locs: list[Loc] = field(default_factory=list)

    def add(self, start: int, loc: Loc) -> None:
        self.starts.append(start)
        self.locs.append(loc)

    def at(self, char: int) -> Loc | None:
        """The frame that carried character ``char`` (or, past the end, the last frame)."""
        if not self.starts:
            return None
        i = bisect.bisect_right(self.starts, char) - 1
        return self.locs[max(i, 0)]


@dataclass
class Content:
    """The meaning of one stream plus provenance; build it with :func:`content_of`."""

    dialect: str | None = None
    model: Reassembler = field(default_factory=Reassembler)
    #: (choice, field) -> pieces; field is "text", "reasoning", "refusal" or "call:<index>"
    pieces: dict[tuple[int, str], Pieces] = field(default_factory=dict)
    finish_at: dict[int, Loc] = field(default_factory=dict)
    call_at: dict[tuple[int, int], Loc] = field(default_factory=dict)  # a call's first frame
    usage_at: Loc | None = None
    error_at: Loc | None = None
    done_at: Loc | None = None
    last: Loc | None = None  # the last frame: where something missing should have been
    frames: int = 0
    starts: list[int] = field(default_factory=list)  # each frame's byte offset, in order
    #: each frame's end (just past its blank line; -1 at the body's end, undelimited)
    ends: list[int] = field(default_factory=list)
    #: the opaque state a client must send back on its next turn (:mod:`.state`)
    state: State = field(default_factory=State)
    #: a native stream's own word for how it ended - Anthropic's ``stop_reason``, a
    #: Responses terminal status (``incomplete (REASON)``), Gemini's first candidate's
    #: ``finishReason`` - as :func:`providers.native_finish` reads it (the model holds it
    #: folded into a chat finish_reason, where a value the provider never sends, such as
    #: ``error``, became ``stop``): what a message about it quotes, and what tells it apart
    native_finish: str | None = None

    def where(self, choice: int, name: str, char: int) -> Loc | None:
        p = self.pieces.get((choice, name))
        return p.at(char) if p is not None else None

    def length(self, key: tuple[int, str]) -> int:
        """How many characters a field of :attr:`pieces` holds in the end."""
        return _totals(self.model).get(key, 0)


class _Builder:
    def __init__(self, dialect: str | None, include_usage: bool) -> None:
        self.c = Content(dialect=dialect)
        self._usage = include_usage
        self._translator: Translator | None = None
        self._state: StateFolder | None = None
        self._held: list[Event] = []
        self._usage_loc: Loc | None = None  # the last event that carried usage counts
        if dialect is not None:
            self._start(dialect)

    def _start(self, dialect: str) -> None:
        self.c.dialect = dialect
        self._translator = translator_for(dialect, include_usage=self._usage)
        self._state = StateFolder(dialect)

    def event(self, ev: Event) -> None:
        if self._translator is None:
            self._held.append(ev)
            dialect = detect_event(ev)
            if dialect is None and len(self._held) < DETECT_WINDOW:
                return
            self._start(dialect or providers.OPENAI)
            held, self._held = self._held, []
            for h in held:
                self._one(h)
            return
        self._one(ev)

    def finish(self) -> None:
        if self._translator is None:
            self._start(providers.OPENAI)
            held, self._held = self._held, []
            for h in held:
                self._one(h)
        assert self._translator is not None
        if self.c.dialect != providers.OPENAI:
            at = self.c.last or Loc(0, 0)
            for frame in self._translator.finish():
                self._frame(frame, at)
        self.c.model.finish()
        if self._state is not None:
            self.c.state = self._state.finish()

    def _one(self, ev: Event) -> None:
        loc = Loc(ev.frame, ev.offset)
        self.c.last = loc
        self.c.frames += 1
        self.c.starts.append(ev.offset)
        self.c.ends.append(ev.end)
        if self._state is not None:
            self._state.feed(ev.data, ev.frame, ev.offset)
        key = providers.FINISH_KEYS.get(self.c.dialect or "")
        if self.c.native_finish is None and key is not None and key in ev.data:
            self._native_finish(ev.data)
        if '"usage' in ev.data:  # usage, usageMetadata: where a native stream's counts are
            self._usage_loc = loc
        if self.c.dialect == providers.OPENAI:  # a chunk stream is read as it is
            data = ev.data
            if data.strip() == "[DONE]":
                self._frame("[DONE]", loc)
                return
            try:
                obj = orjson.loads(data)
            except orjson.JSONDecodeError:
                return
            if isinstance(obj, dict):
                self._frame(obj, loc)
            return
        assert self._translator is not None
        for frame in self._translator.feed(ev):
            self._frame(frame, loc)

    def _native_finish(self, data: str) -> None:
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            return
        assert self.c.dialect is not None
        self.c.native_finish = providers.native_finish(self.c.dialect, obj)

    def _frame(self, frame: object, loc: Loc) -> None:
        m = self.c.model
        if frame == "[DONE]":
            if not m.done and self.c.done_at is None:
                self.c.done_at = loc
            m.feed_event("[DONE]")
            return
        if not isinstance(frame, dict) or m.done:
            return
        before = _totals(m)
        had_error = m.error is not None
        had_usage = m.usage is not None
        m.feed_obj(frame)
        if m.error is not None and not had_error:
            self.c.error_at = loc
        if m.usage is not None and not had_usage:
            # a native stream's usage chunk is made at its end (Anthropic's at message_stop):
            # it is about the last event that carried the counts (message_delta)
            self.c.usage_at = self._usage_loc or loc
        for key, total in _totals(m).items():
            old = before.get(key)
            if old is None and key[1].startswith("call:"):
                self.c.call_at[(key[0], int(key[1][5:]))] = loc
            if total > (old or 0):
                self.c.pieces.setdefault(key, Pieces()).add(old or 0, loc)
        for idx, ch in m.choices.items():
            if ch.finish_reason is not None and idx not in self.c.finish_at:
                self.c.finish_at[idx] = loc


def _totals(m: Reassembler) -> dict[tuple[int, str], int]:
    out: dict[tuple[int, str], int] = {}
    for idx, ch in m.choices.items():
        text, reasoning, refusal = ch.parts
        out[(idx, "text")] = text.total
        out[(idx, "reasoning")] = reasoning.total
        out[(idx, "refusal")] = refusal.total
        for ci, call in ch.tool_calls.items():
            out[(idx, f"call:{ci}")] = call.size
    return out


class ContentFolder:
    """:func:`content_of` as it arrives: ``feed(bytes)`` any split, then ``finish()``. Holds
    what the content is (text, calls, usage), never the bytes. ``whole``: the body answers a
    non-streaming call (Gemini's ``:generateContent``), one JSON object read as one chunk."""

    def __init__(
        self, dialect: str | None = None, *, include_usage: bool = True, whole: bool = False
    ) -> None:
        self._b = _Builder(dialect, include_usage)
        self._dec: SSEDecoder | ElementDecoder = (
            ElementDecoder(single=True) if whole else SSEDecoder()
        )

    def feed(self, data: bytes) -> None:
        event = self._b.event
        for ev in self._dec.feed(data):
            event(ev)
        if isinstance(self._dec, SSEDecoder):
            self._dec.take_anomalies()

    def lengths(self) -> dict[tuple[int, str], int]:
        """How much of each field has arrived so far (characters; a call's argument bytes):
        what ``load`` times each read of a stream by."""
        return _totals(self._b.c.model)

    def finish(self) -> Content:
        for ev in self._dec.finish():
            self._b.event(ev)
        self._b.finish()
        return self._b.c


def content_of(
    reads: Iterable[bytes],
    dialect: str | None = None,
    *,
    include_usage: bool = True,
    whole: bool = False,
) -> Content:
    """Fold a body (its reads, in order) into :class:`Content`; ``dialect`` None: detected.

    A native stream's usage is translated into a usage chunk (``include_usage``), so it can
    be compared with the one a gateway sends when asked. ``whole``: a non-streaming answer
    (one JSON object), as :class:`ContentFolder` reads it.
    """
    folder = ContentFolder(dialect, include_usage=include_usage, whole=whole)
    for data in reads:
        folder.feed(data)
    return folder.finish()


def describe(value: Any) -> str:
    """A short printable rendering of a value for messages: quoted and escaped once, by
    ``repr`` (a newline shows as ``\\n``; escaping first and quoting after showed it as
    ``\\\\x0a``)."""
    text = value if isinstance(value, str) else orjson.dumps(value).decode()
    return repr(text if len(text) <= 40 else text[:39] + "\u2026")
