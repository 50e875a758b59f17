"""The anthropic grammar's checker: Messages API events, one pass, feed/finish, memory that does
not grow with the stream's length.

Each event is parsed once with orjson and validated against its type's schema
(``schemas/anthropic/<type>.schema.json``, jsonschema-rs); a violation at a place an A rule
claims (the usage objects, the error object) is that rule's finding, any other is J003. Then
the event moves the message's state (``state.StreamState``): the message opened once, blocks
opened, fed and closed in index order, the stop reason, the end. The checker decides what
happened; the rules' checks, each in its rule module, decide what to report, called at the
moments of ``hooks.py``. Every finding is located at the start of the event it is about;
findings about the end of the stream at the last event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from sseconform.rules.anthropic import hooks as moment
from sseconform.rules.anthropic.hooks import HOOKS
from sseconform.rules.anthropic.state import (
    BLOCK_DELTAS,
    DELTA_TYPES,
    EVENT_TYPES,
    MAX_OPEN_BLOCKS,
    Block,
    StreamState,
)
from sseconform.rules.base import Checker, Settings
from sseconform.rules.delta_template import DeltaTemplate
from sseconform.rules.lane import Run
from sseconform.rules.native import is_chat_chunk
from sseconform.rules.schema import validator, violations
from sseconform.sse.decoder import Event
from sseconform.sse.template import NUM

__all__ = ["CHECKER", "AnthropicChecker"]

_Handler = Callable[[Event, dict[str, Any]], None]


#: The delta a block of each type streams, whose template is armed at the block's start
#: (a tool block's: ``INPUT_DELTA``).
ARMED_DELTA = {"text": "text_delta", "thinking": "thinking_delta"}
INPUT_DELTA = "input_json_delta"


def schema_name(kind: str) -> str:
    """The schema of an event type: ``schemas/anthropic/<type>.schema.json``."""
    return f"anthropic/{kind}"


class AnthropicChecker(Checker):
    """The anthropic grammar: what the Anthropic SDKs, Claude Code and the AI SDK parse."""

    grammar = "anthropic"

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        self._s = StreamState()
        self._valid = {k: validator(schema_name(k)).is_valid for k in EVENT_TYPES}
        self._handlers: dict[str, _Handler] = {
            "message_start": self._message_start,
            "content_block_start": self._block_start,
            "content_block_delta": self._block_delta,
            "content_block_stop": self._block_stop,
            "message_delta": self._message_delta,
            "message_stop": self._message_stop,
            "ping": _ignore,
            "error": self._error,
        }
        self._max_input = self.settings.max_arguments
        self._memo = self.settings.memo
        self._frame_start = 0
        self._at = HOOKS.table(self._enabled)
        #: delta type -> a proven template of its deltas whose block index is a hole: one
        #: cut serves every block of the kind (filled in with the block's index at its
        #: start, or when its next delta fits after a ping)
        self._library: dict[str, DeltaTemplate] = {}
        #: the block the held template's deltas must belong to (their index is checked)
        self._armed: Block | None = None

    @property
    def state(self) -> StreamState:
        """The message's progress (read-only for rules)."""
        return self._s

    @property
    def max_input(self) -> int:
        """The most tool input kept to parse (``max_arguments``)."""
        return self._max_input

    # -- events ----------------------------------------------------------------------------

    def _on_event(self, ev: Event) -> None:
        if self._tmpl is not None and self._by_template(ev):
            return
        self._frame_start = self._emitted
        s = self._s
        if s.ended is not None:
            self._after_end(ev)
            return
        self._data_lines(ev)
        if ev.data == "[DONE]":
            moment.DONE_SENTINEL.fire(self._at, self, ev)
            return
        obj = self._json_object(ev)
        if obj is None:
            return
        kind = obj.get("type")
        if type(kind) is not str:
            self._untyped(ev, obj)
            return
        if s.pending_cut is not None and kind not in ("message_delta", "ping"):
            self._flush_cut()
        handler = self._handlers.get(kind)
        if handler is None:
            moment.UNKNOWN_EVENT.fire(self._at, self, ev, kind)
            return
        name = ev.event
        if name != kind:
            moment.EVENT_NAME.fire(self._at, self, ev, name, kind)
        if not self._valid[kind](obj):
            self._schema(ev, kind, obj)
        handler(ev, obj)

    def _template_take(self, t: DeltaTemplate, run: Run) -> int:
        """The run's deltas up to the first of another block than the armed one (still
        open): a tool block's input grows by their pieces; text and thinking deltas of the
        block's own kind need nothing more than the full path gave the first."""
        b = self._armed
        if b is None or self._s.open.get(b.index) is not b:
            return 0
        if b.tool:
            self._input_piece(b, run.text(run.n), run.n)
        return run.n

    def _untyped(self, ev: Event, obj: dict[str, Any]) -> None:
        """A JSON object with no string ``type``: a chat chunk, an OpenAI error, or broken."""
        if is_chat_chunk(obj):
            moment.UNTYPED.fire(self._at, self, ev, obj)
        elif "error" in obj:
            self._error(ev, obj)
        else:
            self._schema_error(ev, "the event has no string `type`", "/type")

    def _schema(self, ev: Event, kind: str, obj: dict[str, Any]) -> None:
        for v in violations(schema_name(kind), obj):
            owner = HOOKS.owner(kind, v, obj)
            if owner is None:
                self._schema_error(ev, v.message, v.pointer)
            else:
                self.report(owner[0], owner[1], ev, v.pointer)

    def _after_end(self, ev: Event) -> None:
        """Anything but a ping after message_stop or an error event, reported once."""
        s = self._s
        if ev.data == "[DONE]":
            moment.DONE_SENTINEL.fire(self._at, self, ev)
        elif not s.after_end_reported and not _is_ping(ev.data):
            s.after_end_reported = True
            moment.AFTER_END.fire(self._at, self, ev)

    # -- the message -----------------------------------------------------------------------

    def _begin(self, ev: Event, kind: str) -> None:
        self._s.began = True
        moment.BEGIN.fire(self._at, self, ev, kind)

    def _message_start(self, ev: Event, obj: dict[str, Any]) -> None:
        s = self._s
        if s.start_seen:
            moment.START_AGAIN.fire(self._at, self, ev)
            return
        if not s.began:
            self._begin(ev, "message_start")
        s.start_seen = True  # late (after A001) or first
        message = obj.get("message")
        usage = message.get("usage") if type(message) is dict else None
        out = usage.get("output_tokens") if type(usage) is dict else None
        if type(out) is int:
            s.output_tokens = out

    def _message_delta(self, ev: Event, obj: dict[str, Any]) -> None:
        s = self._s
        if not s.began:
            self._begin(ev, "message_delta")
        delta = obj.get("delta")
        reason = delta.get("stop_reason") if type(delta) is dict else None
        if s.pending_cut is not None:
            self._flush_cut(cut=reason == "max_tokens")
        if type(reason) is str:
            s.stop_reason = reason
            moment.STOP_REASON.fire(self._at, self, ev, reason)
        usage = obj.get("usage")
        out = usage.get("output_tokens") if type(usage) is dict else None
        if type(out) is int:
            moment.OUTPUT_TOKENS.fire(self._at, self, ev, out, s.output_tokens)
            s.output_tokens = out

    def _message_stop(self, ev: Event, obj: dict[str, Any]) -> None:
        s = self._s
        if not s.began:
            self._begin(ev, "message_stop")
        moment.MESSAGE_STOP.fire(self._at, self, ev)
        s.open.clear()
        s.ended = ev
        s.ended_by = "message_stop"

    def _error(self, ev: Event, obj: dict[str, Any]) -> None:
        """An error event ends the stream; its shape was validated with its schema."""
        moment.ERROR.fire(self._at, self, ev, obj)
        self._s.ended = ev
        self._s.ended_by = "error"

    # -- blocks ----------------------------------------------------------------------------

    def _block_start(self, ev: Event, obj: dict[str, Any]) -> None:
        s = self._s
        if not s.began:
            self._begin(ev, "content_block_start")
        index = obj.get("index")
        block = obj.get("content_block")
        if type(index) is not int or index < 0 or type(block) is not dict:
            return  # J003 said so
        kind = block.get("type")
        if type(kind) is not str:
            return
        moment.BLOCK_START.fire(self._at, self, ev, index, block, kind)
        b = Block(index, kind, ev)
        if kind == "tool_use":
            given = block.get("input")
            b.input_in_start = type(given) is dict and bool(given)
        elif kind == "thinking":
            b.signed = bool(block.get("signature"))
        if len(s.open) < MAX_OPEN_BLOCKS or index in s.open:
            s.open[index] = b
            self._arm(b)
        if index >= s.next_index:
            s.next_index = index + 1

    def _arm(self, b: Block) -> None:
        """A block begun with nothing to say of it: the template of its kind's deltas (made
        for an earlier block) takes them from the first, none of them decoded."""
        kind = ARMED_DELTA.get(b.type) or (INPUT_DELTA if b.tool else None)
        t = self._library.get(kind) if kind is not None else None
        if t is not None and self._memoizing():
            self._drop_template()
            self._hold(t, b)

    def _hold(self, known: DeltaTemplate, b: Block) -> None:
        """The kind's template, its index filled in with ``b``'s, as the one held."""
        eol = self._lane.eol if self._lane is not None else b"\n"
        self._tmpl, self._armed = DeltaTemplate(known.filled(b.index), None, eol), b

    def _block_delta(self, ev: Event, obj: dict[str, Any]) -> None:
        s = self._s
        if not s.began:
            self._begin(ev, "content_block_delta")
        index = obj.get("index")
        delta = obj.get("delta")
        if type(index) is not int or type(delta) is not dict:
            return
        kind = delta.get("type")
        if type(kind) is not str:
            return
        b = s.open.get(index)
        if b is None:
            moment.UNKNOWN_BLOCK.fire(self._at, self, ev, index, "content_block_delta")
            return
        if kind == "input_json_delta" and b.tool:
            piece = delta.get("partial_json")
            self._input_piece(b, piece if type(piece) is str else "")
            if type(piece) is str:
                self._remember(ev, obj, "partial_json", b)
            return
        if kind == "text_delta" and b.type == "text":
            self._remember(ev, obj, "text", b)
            return
        allowed = BLOCK_DELTAS.get(b.type)
        if kind not in DELTA_TYPES:
            moment.UNKNOWN_DELTA.fire(self._at, self, ev, kind)
        elif allowed is not None and kind not in allowed:
            if not b.mismatch_reported:
                b.mismatch_reported = True
                moment.DELTA_MISMATCH.fire(self._at, self, ev, kind, b)
        elif kind == "signature_delta":
            b.signed = True
        elif kind == "thinking_delta" and b.type == "thinking":
            self._remember(ev, obj, "thinking", b)

    def _input_piece(self, b: Block, piece: str, deltas: int = 1) -> None:
        """One input_json_delta of a tool block (or ``deltas`` of them, their pieces joined):
        counted, and kept up to max_arguments (past it, only the size counts)."""
        b.deltas += deltas
        if piece:
            size = b.size + len(piece)
            if size <= self._max_input:
                b.parts.append(piece)
            b.size = size

    def _memoizing(self) -> bool:
        """May the event just read be the template of the next ones: nothing said of it,
        the message under way, no cut held?"""
        s = self._s
        return (
            self._memo
            and self._emitted == self._frame_start
            and s.pending_cut is None
            and s.ended is None
        )

    def _remember(self, ev: Event, obj: dict[str, Any], key: str, b: Block) -> None:
        """Keep a delta that found nothing as the template of the next ones
        (rules/delta_template.py), its block index a hole; the kind's template already made
        is taken again when this delta fits it."""
        if not (self._memoizing() and ev.data_lines == 1 and ev.event == "content_block_delta"):
            return
        delta = obj["delta"]
        kind = delta["type"]
        known = self._library.get(kind)
        if known is not None:
            got = known.match(ev.data)
            if got is not None and got[2] == (b.index,):
                self._hold(known, b)
                return
        self._learn(ev, obj, ("delta", key), None, numbers="index")
        t = self._tmpl
        if t is not None:
            self._armed = b
            if t.holes.count(NUM) == 1:
                self._library[kind] = t
                self._hold(t, b)

    def _block_stop(self, ev: Event, obj: dict[str, Any]) -> None:
        s = self._s
        if not s.began:
            self._begin(ev, "content_block_stop")
        index = obj.get("index")
        if type(index) is not int:
            return
        b = s.open.pop(index, None)
        if b is None:
            moment.UNKNOWN_BLOCK.fire(self._at, self, ev, index, "content_block_stop")
        elif b.tool:
            self._tool_input(ev, b)
        else:
            moment.BLOCK_STOP.fire(self._at, self, ev, b)

    def _tool_input(self, ev: Event, b: Block) -> None:
        """A tool block's input, whole at its stop: one JSON object."""
        what = f"{b.type} block {b.index} (started at frame {b.event.frame})"
        if b.size > self._max_input:
            moment.INPUT_TOO_LARGE.fire(self._at, self, ev, b, what)
            return
        text = "".join(b.parts)
        if not text.strip():
            moment.INPUT_EMPTY.fire(self._at, self, ev, b, what)
            return
        try:
            value = orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            said = (
                f"{what}: input is not JSON ({exc.msg} at character {exc.pos} of {len(text)}); "
                f"it ends {text[-40:]!r}"
            )
            if self._s.pending_cut is not None:
                self._flush_cut()
            self._s.pending_cut = (ev, said)  # the stop reason decides: cut, or invalid
            return
        moment.INPUT_PARSED.fire(self._at, self, ev, b, what, value)

    def _flush_cut(self, *, cut: bool = False) -> None:
        """Report the held tool input: cut by max_tokens (the last block), or not."""
        pending = self._s.pending_cut
        self._s.pending_cut = None
        if pending is not None:
            ev, said = pending
            moment.INPUT_INVALID.fire(self._at, self, ev, said, cut)

    # -- the end ---------------------------------------------------------------------------

    def _end_of_stream(self) -> None:
        self._flush_cut()
        moment.END.fire(self._at, self)


def _ignore(ev: Event, obj: dict[str, Any]) -> None:
    """A ping: nothing to check but its schema."""


def _is_ping(data: str) -> bool:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return type(obj) is dict and obj.get("type") == "ping"


#: What ``rules.grammars`` instantiates for ``--grammar anthropic``.
CHECKER = AnthropicChecker
