"""The anthropic grammar's checker: Messages API events, one pass, feed/finish, memory that does
not grow with the stream's length.

Each event is parsed once with orjson and validated against its type's schema
(``schemas/anthropic/<type>.schema.json``, jsonschema-rs); a violation at a place an A rule
owns (the usage objects, the error object) takes that rule's code, any other is J003. Then the
event moves the message's state (``state.StreamState``): the message opened once, blocks opened,
fed and closed in index order, the stop reason, the end. Every finding is located at the start
of the event it is about; findings about the end of the stream at the last event.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import orjson

from sseconform.rules.anthropic.state import (
    BLOCK_DELTAS,
    DELTA_TYPES,
    EVENT_TYPES,
    MAX_OPEN_BLOCKS,
    OPENAI_FINISH_REASONS,
    STOP_REASONS,
    Block,
    StreamState,
)
from sseconform.rules.base import WIRE_MESSAGES, Checker, Settings
from sseconform.rules.delta_template import DeltaTemplate, make_template
from sseconform.rules.schema import validator, violations
from sseconform.sse import decoder as sse
from sseconform.sse.decoder import Event

__all__ = ["CHECKER", "AnthropicChecker"]

_Handler = Callable[[Event, dict[str, Any]], None]


def schema_name(kind: str) -> str:
    """The schema of an event type: ``schemas/anthropic/<type>.schema.json``."""
    return f"anthropic/{kind}"


class AnthropicChecker(Checker):
    """The anthropic grammar: what the Anthropic SDKs, Claude Code and the AI SDK parse."""

    grammar = "anthropic"
    ANOMALY_MESSAGES: ClassVar[dict[str, str]] = {
        **WIRE_MESSAGES,
        sse.ID_FIELD: "`id: {}` on a Messages stream",
        sse.RETRY_FIELD: "`retry: {}` on a Messages stream",
    }

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
        self._tmpl: DeltaTemplate | None = None  # the last delta, checked in full
        self._frame_start = 0

    # -- events ----------------------------------------------------------------------------

    def _on_event(self, ev: Event) -> None:
        t = self._tmpl
        if t is not None:
            if ev.event == t.event and ev.data_lines == 1:
                got = t.match(ev.data)
                if got is not None:
                    if t.target is not None:  # a tool block: its input grows
                        self._input_piece(t.target, got[0])
                    return
            self._tmpl = None
        self._frame_start = self._emitted
        s = self._s
        if s.ended is not None:
            self._after_end(ev)
            return
        self._data_lines(ev)
        obj = self._parse(ev)
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
            self._other(ev, kind)
            return
        name = ev.event
        if name != kind:
            self._event_name(ev, name, kind)
        if not self._valid[kind](obj):
            self._schema(ev, kind, obj)
        handler(ev, obj)

    def _parse(self, ev: Event) -> dict[str, Any] | None:
        """The event's JSON object, or None when it is not one (reported here)."""
        data = ev.data
        if data == "[DONE]":
            self._emit("A034", "`data: [DONE]` in a Messages stream; it ends with message_stop", ev)
            return None
        return self._json_object(ev)

    def _event_name(self, ev: Event, name: str | None, kind: str) -> None:
        s = self._s
        if name is None:
            if kind != "ping" and not s.name_missing_reported:
                s.name_missing_reported = True
                self._emit(
                    "A024",
                    f"a {kind} event without an `event:` line (the first such event): "
                    "the Anthropic SDKs skip events that have no name",
                    ev,
                )
        elif name in ("ping", "error"):
            self._emit(
                "A023",
                f"`event: {name}` on a {kind} payload: clients act on the name "
                f"({'skip the event' if name == 'ping' else 'raise an error'})",
                ev,
            )
        elif self._once_key(f"A022:{name}:{kind}"):
            self._emit("A022", f"`event: {name}` on a {kind} payload", ev)

    def _untyped(self, ev: Event, obj: dict[str, Any]) -> None:
        """A JSON object with no string ``type``: a chat chunk, an OpenAI error, or broken."""
        if "choices" in obj or obj.get("object") == "chat.completion.chunk":
            self._emit("A032", "an OpenAI chat.completion.chunk in a Messages stream", ev)
        elif "error" in obj:
            self._error(ev, obj)
        else:
            self._emit("J003", "the event has no string `type`", ev, "/type")

    def _other(self, ev: Event, kind: str) -> None:
        """An event type the Messages API does not have."""
        if kind.startswith("response."):
            if self._once_key("A035:" + kind):
                self._emit("A035", f"a Responses API event {kind!r} in a Messages stream", ev)
        elif self._once_key("A025:" + kind):
            self._emit("A025", f"event type {kind!r} is not a Messages stream event", ev)

    def _schema(self, ev: Event, kind: str, obj: dict[str, Any]) -> None:
        for v in violations(schema_name(kind), obj):
            code = _code_for(kind, v.pointer, obj)
            self._emit(
                code,
                v.message if code == "J003" else _say(code, v.pointer, v.message),
                ev,
                v.pointer,
            )

    def _after_end(self, ev: Event) -> None:
        """Anything but a ping after message_stop or an error event, reported once."""
        s = self._s
        if ev.data == "[DONE]":
            self._emit("A034", "`data: [DONE]` in a Messages stream; it ends with message_stop", ev)
            return
        if _is_ping(ev.data):
            return
        if s.after_end_reported:
            return
        s.after_end_reported = True
        end = s.ended
        assert end is not None
        if s.ended_by == "error":
            self._emit("A027", f"an event after the error event at frame {end.frame}", ev)
        else:
            self._emit("A021", f"an event after message_stop (frame {end.frame})", ev)

    # -- the message -----------------------------------------------------------------------

    def _begin(self, ev: Event, kind: str) -> None:
        s = self._s
        s.began = True
        if kind != "message_start":
            self._emit("A001", f"the message opens with {kind}, not message_start", ev)

    def _message_start(self, ev: Event, obj: dict[str, Any]) -> None:
        s = self._s
        if s.start_seen:
            self._emit("A002", "a second message_start", ev)
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
            if reason in OPENAI_FINISH_REASONS:
                self._emit(
                    "A033",
                    f"stop_reason {reason!r} is an OpenAI finish_reason",
                    ev,
                    "/delta/stop_reason",
                )
            elif reason not in STOP_REASONS:
                self._emit(
                    "A019",
                    f"stop_reason {reason!r} is none of the Messages API's",
                    ev,
                    "/delta/stop_reason",
                )
        usage = obj.get("usage")
        out = usage.get("output_tokens") if type(usage) is dict else None
        if type(out) is int:
            if s.output_tokens is not None and out < s.output_tokens:
                self._emit(
                    "A031",
                    f"output_tokens {out} is below the {s.output_tokens} sent before; "
                    "the count is cumulative",
                    ev,
                    "/usage/output_tokens",
                )
            s.output_tokens = out

    def _message_stop(self, ev: Event, obj: dict[str, Any]) -> None:
        s = self._s
        if not s.began:
            self._begin(ev, "message_stop")
        if s.open:
            which = _indexes(s.open)
            if s.stop_reason == "max_tokens":
                self._emit("A008", f"block {which} cut by max_tokens is never closed", ev)
            else:
                self._emit("A006", f"message_stop with block {which} still open", ev)
            s.open.clear()
        if s.stop_reason is None:
            self._emit("A018", "message_stop, but no message_delta gave a stop_reason", ev)
        s.ended = ev
        s.ended_by = "message_stop"

    def _error(self, ev: Event, obj: dict[str, Any]) -> None:
        """An error event ends the stream; its shape was validated with its schema."""
        if obj.get("type") != "error":
            self._emit(
                "A026",
                "an OpenAI-style error frame, not "
                '{"type": "error", "error": {"type": ..., "message": ...}}',
                ev,
            )
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
        if s.open and index not in s.open:
            self._emit(
                "A007", f"block {index} starts while block {_indexes(s.open)} is still open", ev
            )
        if index != s.next_index:
            if index < s.next_index:
                msg = f"block index {index} is used again; the next block is {s.next_index}"
            else:
                msg = f"block index {index}, but the next block is {s.next_index}"
            self._emit("A004", msg, ev, "/index")
        if kind not in BLOCK_DELTAS and self._once_key("A010:" + kind):
            self._emit(
                "A010",
                f"content block type {kind!r} is not one the SDKs know",
                ev,
                "/content_block/type",
            )
        b = Block(index, kind, ev)
        if kind == "tool_use":
            given = block.get("input")
            caller = block.get("caller")
            by_server = type(caller) is dict and caller.get("type") not in (None, "direct")
            if type(given) is dict and given:
                b.input_in_start = True
                if not by_server:
                    self._emit(
                        "A015",
                        "the tool_use block's input is in content_block_start; it streams as "
                        "input_json_delta after an empty {}",
                        ev,
                        "/content_block/input",
                    )
        elif kind == "thinking":
            b.signed = bool(block.get("signature"))
        if len(s.open) < MAX_OPEN_BLOCKS or index in s.open:
            s.open[index] = b
        if index >= s.next_index:
            s.next_index = index + 1

    def _unknown_block(self, ev: Event, index: int, what: str) -> None:
        """A delta or stop for a block that is not open: never started, or already closed."""
        s = self._s
        if index < s.next_index:
            if self._once_key(f"A005:{index}"):
                self._emit(
                    "A005", f"a {what} for block {index} after its content_block_stop", ev, "/index"
                )
        elif self._once_key(f"A003:{index}"):
            self._emit(
                "A003", f"block {index} was never started (no content_block_start)", ev, "/index"
            )

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
            self._unknown_block(ev, index, "content_block_delta")
            return
        if kind == "input_json_delta" and b.tool:
            piece = delta.get("partial_json")
            self._input_piece(b, piece if type(piece) is str else "")
            if type(piece) is str:
                self._remember(ev, obj, "partial_json", b)
            return
        if kind == "text_delta" and b.type == "text":
            self._remember(ev, obj, "text", None)
            return
        allowed = BLOCK_DELTAS.get(b.type)
        if kind not in DELTA_TYPES:
            if self._once_key("A011:" + kind):
                self._emit(
                    "A011", f"delta type {kind!r} is not one the SDKs know", ev, "/delta/type"
                )
        elif allowed is not None and kind not in allowed:
            if not b.mismatch_reported:
                b.mismatch_reported = True
                self._emit(
                    "A009", f"a {kind} in block {index}, a {b.type} block", ev, "/delta/type"
                )
        elif kind == "signature_delta":
            b.signed = True
        elif kind == "thinking_delta" and b.type == "thinking":
            self._remember(ev, obj, "thinking", None)

    def _input_piece(self, b: Block, piece: str) -> None:
        """One input_json_delta of a tool block: counted, and kept up to max_arguments."""
        b.deltas += 1
        if piece:
            size = b.size + len(piece)
            if size <= self._max_input:
                b.parts.append(piece)
            b.size = size

    def _remember(self, ev: Event, obj: dict[str, Any], key: str, target: Block | None) -> None:
        """Keep a delta that found nothing as the template of the next ones
        (rules/delta_template.py): only while the message is under way and no cut is held."""
        s = self._s
        if (
            self._memo
            and self._emitted == self._frame_start
            and ev.data_lines == 1
            and ev.event == "content_block_delta"
            and s.pending_cut is None
            and s.ended is None
        ):
            self._tmpl = make_template(ev.data, obj, ev.event, ("delta", key), target, seq=False)

    def _block_stop(self, ev: Event, obj: dict[str, Any]) -> None:
        s = self._s
        if not s.began:
            self._begin(ev, "content_block_stop")
        index = obj.get("index")
        if type(index) is not int:
            return
        b = s.open.pop(index, None)
        if b is None:
            self._unknown_block(ev, index, "content_block_stop")
            return
        if b.tool:
            self._tool_input(ev, b)
        elif b.type == "thinking" and not b.signed:
            self._emit("A012", f"thinking block {index} ends without a signature", ev)

    def _tool_input(self, ev: Event, b: Block) -> None:
        """A tool block's input, whole at its stop: one JSON object."""
        what = f"{b.type} block {b.index} (started at frame {b.event.frame})"
        if b.size > self._max_input:
            self._emit(
                "A017",
                f"{what}: {b.size} characters of input, over the {self._max_input} limit: "
                "not parsed",
                ev,
            )
            return
        text = "".join(b.parts)
        if not text.strip():
            if (
                b.deltas == 0
                and b.type == "tool_use"
                and not (b.input_in_start or b.mismatch_reported)
            ):
                self._emit("A016", f"{what}: input {{}} and no input_json_delta at all", ev)
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
            self._s.pending_cut = (ev, said)  # A013 or A036: the stop reason decides
            return
        if type(value) is not dict:
            self._emit("A014", f"{what}: input is JSON {type(value).__name__}, not an object", ev)

    def _flush_cut(self, *, cut: bool = False) -> None:
        """Report the held tool input: A036 when max_tokens cut the last block, else A013."""
        pending = self._s.pending_cut
        self._s.pending_cut = None
        if pending is not None:
            ev, said = pending
            if cut:
                self._emit("A036", f"{said}: cut by max_tokens", ev)
            else:
                self._emit("A013", said, ev)

    # -- the end ---------------------------------------------------------------------------

    def _end_of_stream(self) -> None:
        s = self._s
        self._flush_cut()
        if s.ended is not None:
            return
        if not s.began:
            self._at_end("A020", "the stream ends with no message event, no error event")
        elif s.open:
            self._at_end(
                "A020",
                f"the stream ends with block {_indexes(s.open)} open: no message_stop, "
                "no error event",
            )
        else:
            self._at_end("A020", "the stream ends without message_stop or an error event")


def _ignore(ev: Event, obj: dict[str, Any]) -> None:
    """A ping: nothing to check but its schema."""


def _is_ping(data: str) -> bool:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return False
    return type(obj) is dict and obj.get("type") == "ping"


def _indexes(blocks: dict[int, Block]) -> str:
    keys = sorted(blocks)
    shown = ", ".join(str(k) for k in keys[:10])
    return shown + (f" (and {len(keys) - 10} more)" if len(keys) > 10 else "")


def _missing(obj: Any, pointer: str) -> bool:
    """True when the last key of ``pointer`` is absent from an object that is there."""
    parts = pointer.split("/")[1:]
    for p in parts[:-1]:
        if type(obj) is not dict or p not in obj:
            return False
        obj = obj[p]
    return type(obj) is dict and parts[-1] not in obj


def _code_for(kind: str, pointer: str, obj: dict[str, Any]) -> str:
    """The rule that owns a schema violation; J003 where none does."""
    if kind == "error":
        return "A026"
    if kind == "message_start":
        if pointer == "/message/usage":
            return "A028"
        if pointer in ("/message/usage/input_tokens", "/message/usage/output_tokens") and (
            _missing(obj, pointer)
        ):
            return "A030"
    if kind == "message_delta" and (
        pointer == "/usage" or (pointer == "/usage/output_tokens" and _missing(obj, pointer))
    ):
        return "A029"
    return "J003"


def _say(code: str, pointer: str, raw: str) -> str:
    """A violation in the rule's words."""
    if code == "A026":
        return f"the error event is not {{type: error, error: {{type, message}}}} ({raw})"
    if code == "A028":
        return f"message_start has no usage object ({raw})"
    if code == "A029":
        return f"message_delta has no usage.output_tokens ({raw})"
    if code == "A030":
        return f"message_start's usage has no {pointer.rsplit('/', 1)[-1]}"
    return raw


#: What ``rules.grammars`` instantiates for ``--grammar anthropic``.
CHECKER = AnthropicChecker
