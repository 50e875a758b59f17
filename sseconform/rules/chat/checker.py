"""The chat grammar's checker: one pass over a stream, feed/finish, memory that does not grow
with its length.

Bytes go through the SSE decoder (rules.base, shared by every grammar); each frame is parsed
once with orjson, validated once against its schema (jsonschema-rs), then walked by the
per-family checks below, which share per-choice and per-call state. Diagnostics are capped
per code so a broken stream of ten million frames cannot pile them up; what was held back is
counted.

Tool-call arguments are the one thing kept whole (to parse them at the end); they are bounded
by ``max_arguments``.

Every diagnostic is located where an event starts (the rule is in ``Diagnostic``'s
docstring): a wire anomaly is held until the event it sits in is dispatched, then placed at
that event's start; findings about the end of the stream are placed at the last event.
"""

from __future__ import annotations

from typing import Any

import orjson

from sseconform.jsonstr import JSON_STRING, find_literal
from sseconform.rules import native
from sseconform.rules.base import (
    Checker,
    Settings,
)
from sseconform.rules.schema import CHUNK, ERROR, USAGE, validator, violations
from sseconform.rules.usage import read_usage
from sseconform.sse.decoder import Event

__all__ = ["CHECKER", "Settings", "StreamChecker"]

KNOWN_TOP = frozenset(
    {
        "id",
        "object",
        "created",
        "model",
        "system_fingerprint",
        "service_tier",
        "choices",
        "usage",
        "obfuscation",
    }
)
KNOWN_CHOICE = frozenset({"index", "delta", "logprobs", "finish_reason"})
KNOWN_DELTA = frozenset(
    {
        "role",
        "content",
        "refusal",
        "tool_calls",
        "function_call",
        "reasoning_content",
        "audio",
        "annotations",
    }
)
KNOWN_TOOL_CALL = frozenset({"index", "id", "type", "function"})
KNOWN_FUNCTION = frozenset({"name", "arguments"})
NONSTANDARD_REASONING = ("reasoning", "reasoning_details")

_UNSET = object()  # no chunk seen yet: differs from every id, model and created

_JSON_STRING = JSON_STRING
_PROBE = "sseconform-template-probe"


#: Failing frames up to this long are remembered with their schema violations (bounded).
_BAD_KEY = 1024
_BAD_ENTRIES = 256


class _Template:
    """A frame already checked in full, cut around the string literals that change.

    A frame that is ``seg0 + lit + seg1 (+ lit + seg2)`` with each ``lit`` one JSON string
    parses to the very object of the template with other strings in those places: same
    schema verdict, same rule effects. One hole carries the value (delta content or an
    arguments fragment); another may be OpenAI's per-chunk ``obfuscation`` padding. So long
    runs of deltas need no parse. Any frame that misses the template drops it, so every
    change of state goes the full way.
    """

    __slots__ = ("call", "head", "segments", "tail", "value_hole")

    def __init__(self, segments: tuple[str, ...], value_hole: int, call: _Call | None) -> None:
        self.segments = segments
        self.head = segments[0]
        self.tail = segments[-1]
        self.value_hole = value_hole
        self.call = call  # None: the value is delta.content; else this call's arguments

    def value_literal(self, d: str) -> str | None:
        """The value's literal when ``d`` fits the template, else None."""
        if not d.startswith(self.head):
            return None
        segs = self.segments
        if len(segs) == 2:  # one hole: the literal is whatever lies between head and tail
            end = len(d) - len(self.tail)
            if end < len(self.head) + 2 or not d.endswith(self.tail):
                return None
            literal = d[len(self.head) : end]
            return literal if _JSON_STRING.fullmatch(literal) else None
        if len(segs) == 3:  # two holes (content and obfuscation): match the first, the last
            end = len(d) - len(self.tail)
            if not d.endswith(self.tail):
                return None
            m = _JSON_STRING.match(d, len(self.head))
            if m is None or not d.startswith(segs[1], m.end()):
                return None
            second = m.end() + len(segs[1])
            if second > end or not _JSON_STRING.fullmatch(d, second, end):
                return None
            return m.group() if self.value_hole == 0 else d[second:end]
        pos = len(self.head)
        value = None
        for j in range(1, len(segs)):
            m = _JSON_STRING.match(d, pos)
            if m is None:
                return None
            if j - 1 == self.value_hole:
                value = m.group()
            pos = m.end()
            if not d.startswith(segs[j], pos):
                return None
            pos += len(segs[j])
        return value if pos == len(d) else None


class _Call:
    __slots__ = (
        "frame",
        "id",
        "index",
        "line",
        "name",
        "offset",
        "parts",
        "repeat_reported",
        "resent",
        "size",
    )

    def __init__(self, index: int, id: str | None, name: str | None, ev: Event) -> None:
        self.index = index
        self.id = id
        self.name = name
        self.parts: list[str] = []
        self.size = 0
        self.repeat_reported = False
        self.resent = False  # T007 found: the doubled arguments need no F009 as well
        self.frame = ev.frame
        self.line = ev.line
        self.offset = ev.offset


class _Choice:
    __slots__ = (
        "alias",
        "calls",
        "content_started",
        "finish",
        "finish_event",
        "finish_frame",
        "finish_pos",
        "ids",
        "index",
        "interleave_reported",
        "last_call",
        "max_call",
        "role_repeat_reported",
        "started",
        "untracked_calls",
    )

    def __init__(self, index: int) -> None:
        self.index = index
        self.started = False
        self.content_started = False
        self.role_repeat_reported = False
        self.finish: str | None = None
        self.finish_frame = 0
        self.finish_event: Event | None = None
        self.finish_pos = 0
        self.calls: dict[int, _Call] = {}
        self.ids: dict[str, int] = {}
        self.alias: dict[int, int] = {}
        self.max_call = -1
        self.last_call = -1
        self.interleave_reported = False
        self.untracked_calls = False  # deltas whose index was unusable (I002)


class StreamChecker(Checker):
    """The chat grammar: ``chat.completion.chunk`` frames, ``[DONE]``, error frames."""

    grammar = "chat"

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        self._chunk_ok = validator(CHUNK).is_valid
        self._first_id: Any = None
        self._first_model: Any = None
        self._id: Any = _UNSET
        self._model: Any = _UNSET
        self._created: Any = _UNSET
        self._have_head = False
        self._any_content = False
        self._choices: dict[int, _Choice] = {}
        self._max_choice = -1
        self._done = False
        self._after_done_reported = False
        self._error_frame: Event | None = None
        self._awaiting_done: Event | None = None
        self._usage_seen = False
        self._memo = self.settings.memo
        self._tmpl: _Template | None = None
        self._frame_start = 0
        self._bad: dict[tuple[str, str], list[tuple[str, str, str]]] = {}

    # -- frames ----------------------------------------------------------------------------

    def _on_event(self, ev: Event) -> None:
        t = self._tmpl
        if t is not None:
            if ev.event is None and ev.data_lines == 1:
                literal = t.value_literal(ev.data)
                if literal is not None and (
                    t.call is None or self._template_arguments(t.call, literal)
                ):
                    return
            self._tmpl = None
        self._frame_start = self._emitted
        if self._done:
            if not self._after_done_reported:
                self._after_done_reported = True
                self._emit("D002", "an event after `data: [DONE]`", ev)
            return
        if ev.event is not None:
            self._event_name(ev, ev.event)
        self._data_lines(ev)
        data = ev.data
        if data == "[DONE]":
            self._done = True
            self._awaiting_done = None
            return
        if self._awaiting_done is not None:
            err = self._awaiting_done
            self._awaiting_done = None
            self._emit(
                "E002", f"the error frame at frame {err.frame} is followed by data, not [DONE]", ev
            )
        obj = self._json_object(ev)
        if obj is None:
            return
        if not KNOWN_TOP.issuperset(obj) and self._top_unknown(ev, obj):
            return
        choices = obj.get("choices")
        usage = obj.get("usage")
        if "error" in obj and choices is None:
            self._on_error_frame(ev, obj)
        elif usage is not None and not choices:
            self._on_usage_chunk(ev, obj, usage)
        else:
            self._on_chunk(ev, obj, choices, usage)

    def _event_name(self, ev: Event, name: str) -> None:
        if name == "error":
            self._emit("W014", "an error sent as `event: error`: openai-python ignores it", ev)
        elif native.is_native_event_name(name):
            if self._once_key("N001:" + name):
                self._emit("N001", f"native event name `event: {name}`", ev)
        elif self._once_key("W013:" + name):
            self._emit("W013", f"`event: {name}` on chat output", ev)

    def _top_unknown(self, ev: Event, obj: dict[str, Any]) -> bool:
        """Unknown top-level keys; True when the frame is a native payload (no chunk checks)."""
        kind = obj.get("type")
        anthropic_error = kind == "error" and "error" in obj and "choices" not in obj
        if (
            anthropic_error
            or native.is_native_type(kind)
            or not native.NATIVE_TOP_KEYS.isdisjoint(obj)
        ):
            what = f"type {kind!r}" if isinstance(kind, str) else "native keys"
            self._emit("N002", f"a native event leaked ({what})", ev)
            if "error" in obj:  # Anthropic's {"type": "error", "error": {...}} is still an error
                self._on_error_frame(ev, obj)
            return True
        for key in obj:
            if key not in KNOWN_TOP and key != "error":
                self._unknown_key(ev, key, "/" + _seg(key))
        return False

    def _unknown_key(self, ev: Event, key: str, pointer: str) -> None:
        if key in native.NATIVE_KEYS:
            if self._once_key("N004:" + key):
                self._emit("N004", f"native key `{key}` in a chunk", ev, pointer)
        elif key in NONSTANDARD_REASONING:
            if self._once_key("G012:" + key):
                self._emit(
                    "G012", f"reasoning sent as `{key}`, not `reasoning_content`", ev, pointer
                )
        elif self._counts.get("G010", 0) < self._cap and self._once_key("G010:" + _shape(pointer)):
            self._emit("G010", f"field `{key}` is not one OpenAI sends", ev, pointer)

    def _schema(self, name: str, ev: Event, obj: dict[str, Any]) -> None:
        """A schema's verdict depends on the frame alone: a short failing frame seen before
        (a hostile stream repeats one bad frame millions of times) reuses its violations."""
        data = ev.data
        found = self._bad.get((name, data)) if len(data) <= _BAD_KEY else None
        if found is None:
            found = [(v.code, v.message, v.pointer) for v in violations(name, obj)]
            if len(data) <= _BAD_KEY and len(self._bad) < _BAD_ENTRIES:
                self._bad[(name, data)] = found
        for code, message, pointer in found:
            self._emit(code, message, ev, pointer)

    # -- head: id, model, created, failover ------------------------------------------------

    def _head(self, ev: Event, obj: dict[str, Any]) -> None:
        if not self._have_head:
            self._have_head = True
            self._id = self._first_id = obj.get("id")
            self._model = self._first_model = obj.get("model")
            self._created = obj.get("created")
            return
        if obj.get("id") != self._id:  # reported at each change, against the first chunk
            code = "R002" if self._any_content else "G002"
            msg = _changed("id", obj.get("id"), self._first_id, self._id)
            self._emit(code, msg, ev, "/id")
            self._id = obj.get("id")
        if obj.get("model") != self._model:
            code = "R003" if self._any_content else "G003"
            msg = _changed("model", obj.get("model"), self._first_model, self._model)
            self._emit(code, msg, ev, "/model")
            self._model = obj.get("model")
        if obj.get("created") != self._created and self._once_key("G004"):
            msg = f"created {obj.get('created')!r}, first chunk had {self._created!r}"
            self._emit("G004", msg, ev, "/created")

    # -- error frames and usage ------------------------------------------------------------

    def _on_error_frame(self, ev: Event, obj: dict[str, Any]) -> None:
        self._schema(ERROR, ev, obj)
        self._error_frame = ev
        self._awaiting_done = ev

    def _on_usage_chunk(self, ev: Event, obj: dict[str, Any], usage: Any) -> None:
        self._head(ev, obj)
        self._schema(USAGE, ev, obj)
        open_choices = [c.index for c in self._choices.values() if c.finish is None]
        if open_choices:
            self._emit("U001", f"usage chunk before the finish chunk of choice {open_choices}", ev)
        self._usage(ev, usage)

    def _usage(self, ev: Event, usage: Any) -> None:
        if self._usage_seen:
            self._emit("U003", "a second chunk with usage", ev, "/usage")
        self._usage_seen = True
        if isinstance(usage, dict):
            tokens = read_usage(usage)
            if tokens.problems:
                self._emit("U004", "; ".join(tokens.problems), ev, "/usage")
            if tokens.reasoning_outside:
                self._emit(
                    "U006",
                    f"completion_tokens {tokens.sent_completion} leaves out the "
                    f"{tokens.reasoning} reasoning_tokens that total_tokens {tokens.total} "
                    f"counts: read as completion {tokens.completion}",
                    ev,
                    "/usage/completion_tokens",
                )

    # -- chunks ----------------------------------------------------------------------------

    def _on_chunk(self, ev: Event, obj: dict[str, Any], choices: Any, usage: Any) -> None:
        if choices == [] and usage is None and "prompt_filter_results" in obj:
            # Azure OpenAI's prompt-filter chunk, before the answer: empty choices and a blank
            # id, model and object. OpenAI's own service sends it and the SDKs read past it,
            # so it is no grammar error; its unknown key is the one note (G010, info).
            return
        # Azure's empty prompt-filter chunk does not define the stream's id.
        if choices and (
            obj.get("id") != self._id
            or obj.get("model") != self._model
            or obj.get("created") != self._created
        ):
            self._head(ev, obj)
        if not self._chunk_ok(obj):
            self._schema(CHUNK, ev, obj)
        if usage is not None:
            self._emit("U005", "usage on a chunk that has choices", ev, "/usage")
            self._usage(ev, usage)
        if type(choices) is not list:
            return
        if not choices:
            self._emit("G009", "`choices: []` on a chunk that is not the usage chunk", ev)
            return
        if len(choices) == 1:
            ch = choices[0]
            # The two frames that make up nearly every long stream: a mid-stream content
            # delta, or the next arguments fragment of the call being streamed. Once the
            # schema passed they can break no rule; anything else takes the general path.
            if type(ch) is dict and ch.get("finish_reason") is None:
                i = ch.get("index")
                c = self._choices.get(i) if type(i) is int else None
                delta = ch.get("delta")
                if (
                    c is not None
                    and c.content_started
                    and c.finish is None
                    and type(delta) is dict
                    and len(delta) == 1
                    and KNOWN_CHOICE.issuperset(ch)
                ):
                    content = delta.get("content")
                    if type(content) is str:
                        if self._memo and self._emitted == self._frame_start:
                            self._tmpl = _make_template(ev.data, obj, content, None)
                        return
                    if content is None:
                        fast = self._fast_arguments(c, delta.get("tool_calls"))
                        if fast is not None:
                            if self._memo and self._emitted == self._frame_start:
                                self._tmpl = _make_template(ev.data, obj, fast[1], fast[0])
                            return
        for pos, choice in enumerate(choices):
            if type(choice) is dict:
                self._choice(ev, pos, choice)

    def _fast_arguments(self, c: _Choice, tcs: Any) -> tuple[_Call, str] | None:
        """The next arguments fragment of the call being streamed: append it, nothing else.

        Returns the call and the fragment, or None when the delta needs the full walk
        (always, once a call has moved index: aliases are the general path's business).
        """
        if type(tcs) is not list or len(tcs) != 1 or c.alias:
            return None
        tc = tcs[0]
        if type(tc) is not dict or len(tc) != 2:
            return None
        idx = tc.get("index")
        fn = tc.get("function")
        if type(idx) is not int or idx != c.last_call or type(fn) is not dict or len(fn) != 1:
            return None
        args = fn.get("arguments")
        call = c.calls.get(idx)
        if type(args) is not str or not args or call is None or len(args) == call.size:
            return None  # a fragment as long as all before it may be a resend: full check
        self._append(call, args)
        return call, args

    def _append(self, call: _Call, args: str) -> None:
        if call.size + len(args) <= self.settings.max_arguments:
            call.parts.append(args)
        call.size += len(args)

    def _template_arguments(self, call: _Call, literal: str) -> bool:
        """An argument fragment matched the template: decode just the string and append."""
        args = literal[1:-1] if "\\" not in literal else orjson.loads(literal)
        if not args or len(args) == call.size:
            return False  # possibly a resend (T007): take the full path
        self._append(call, args)
        return True

    def _choice(self, ev: Event, pos: int, ch: dict[str, Any]) -> None:
        idx = _int(ch.get("index"))
        if idx is None:
            return
        c = self._choices.get(idx)
        if c is None:
            if idx != self._max_choice + 1:
                expected = self._max_choice + 1
                self._emit(
                    "G005", f"choice index {idx}, expected {expected}", ev, f"/choices/{pos}/index"
                )
            self._max_choice = max(self._max_choice, idx)
            c = self._choices[idx] = _Choice(idx)
        if not KNOWN_CHOICE.issuperset(ch):
            for key in ch:
                if key not in KNOWN_CHOICE:
                    self._unknown_key(ev, key, f"/choices/{pos}/{_seg(key)}")
        delta = ch.get("delta")
        fr = ch.get("finish_reason")
        if c.finish is not None:
            if fr is not None:
                self._emit(
                    "F004",
                    f"second finish_reason {fr!r} for choice {idx} (first {c.finish!r}, "
                    f"frame {c.finish_frame})",
                    ev,
                    f"/choices/{pos}/finish_reason",
                )
            else:
                self._emit("F005", f"a chunk for choice {idx} after its finish chunk", ev)
            return
        if type(delta) is dict and delta:
            self._delta(ev, pos, c, delta, fr is not None)
        if fr is not None:
            self._finish(ev, pos, c, delta, fr)

    def _delta(self, ev: Event, pos: int, c: _Choice, delta: dict[str, Any], fin: bool) -> None:
        if not KNOWN_DELTA.issuperset(delta):
            for key in delta:
                if key not in KNOWN_DELTA:
                    self._unknown_key(ev, key, f"/choices/{pos}/delta/{_seg(key)}")
        if native.is_native_type(delta.get("type")) and self._once_key("N004:type"):
            msg = f"native delta type {delta.get('type')!r}"
            self._emit("N004", msg, ev, f"/choices/{pos}/delta/type")
        role = delta.get("role")
        content = delta.get("content")
        reasoning = delta.get("reasoning_content")
        tool_calls = delta.get("tool_calls")
        payload = bool(
            (type(content) is str and content)
            or (type(reasoning) is str and reasoning)
            or tool_calls
            or delta.get("refusal")
            or delta.get("reasoning")
            or delta.get("reasoning_details")
        )
        if not c.started:
            c.started = True
            if "role" not in delta and not fin:
                self._emit("G006", f"the first delta of choice {c.index} has no role", ev)
        elif role is not None:
            if payload:
                if not c.role_repeat_reported:
                    c.role_repeat_reported = True
                    msg = f"role repeated on a later delta of choice {c.index}"
                    self._emit("G007", msg, ev, f"/choices/{pos}/delta/role")
            elif c.content_started and not c.role_repeat_reported and not fin:
                msg = f"a new role-only start for choice {c.index} after its first delta"
                self._emit("R001", msg, ev, f"/choices/{pos}/delta")
        if reasoning == "":
            self._emit("G011", "empty `reasoning_content`", ev, f"/choices/{pos}/delta")
        if payload:
            c.content_started = True
            self._any_content = True
        if type(tool_calls) is list:
            for tpos, tc in enumerate(tool_calls):
                if type(tc) is dict:
                    self._tool_delta(ev, pos, c, tpos, tc)

    # -- tool calls ------------------------------------------------------------------------

    def _tool_delta(self, ev: Event, pos: int, c: _Choice, tpos: int, tc: dict[str, Any]) -> None:
        where = f"/choices/{pos}/delta/tool_calls/{tpos}"
        if not KNOWN_TOOL_CALL.issuperset(tc):
            for key in tc:
                if key not in KNOWN_TOOL_CALL:
                    self._unknown_key(ev, key, f"{where}/{_seg(key)}")
        if native.is_native_type(tc.get("type")) and self._once_key("N004:tool-type"):
            self._emit("N004", f"native tool-call type {tc.get('type')!r}", ev, f"{where}/type")
        tid = tc.get("id") or None
        fn = tc.get("function")
        if type(fn) is not dict:
            fn = {}
        elif not KNOWN_FUNCTION.issuperset(fn):
            for key in fn:
                if key not in KNOWN_FUNCTION:
                    self._unknown_key(ev, key, f"{where}/function/{_seg(key)}")
        name = fn.get("name") or None
        args = fn.get("arguments")
        given = _int(tc.get("index"))
        if "index" not in tc:  # I001 comes from the schema; route the delta as best we can
            idx = c.ids[tid] if isinstance(tid, str) and tid in c.ids else c.max_call + 1
        elif given is None or given < 0:
            c.untracked_calls = True
            return  # I002 comes from the schema
        else:
            idx = given
        if idx in c.alias and not (isinstance(tid, str) and tid not in c.ids and name):
            idx = c.alias[idx]  # a moved call's index (a new call's own head is not moved)
        call = c.calls.get(idx)
        if call is None and tid is None and name is None and type(args) is str and args:
            moved = self._continued_call(c)
            if moved is not None:
                self._emit(
                    "I006",
                    f"call {moved.index}'s arguments continue under index {idx} (no id, no "
                    "name): the index moved mid-call",
                    ev,
                    f"{where}/index",
                )
                c.alias[idx] = moved.index
                idx = moved.index
                call = moved
        if isinstance(tid, str) and tid in c.ids and c.ids[tid] != idx:
            old = c.ids[tid]
            self._emit(
                "I004", f"call {tid!r} moved from index {old} to {idx}", ev, f"{where}/index"
            )
            c.alias[idx] = old
            idx = old
            call = c.calls[old]
            tid = name = None  # a moved head is one finding (I004), not also T004-T006
        if call is None:
            self._new_call(ev, c, idx, tid, name, tc, fn, where)
        else:
            self._later_delta(ev, c, call, tid, name, where)
        c.last_call = idx
        if type(args) is str and args:
            call = c.calls[idx]
            if (
                call.parts
                and len(args) == call.size
                and args == "".join(call.parts)
                and _is_json_object(args)
                and self._once_key(f"T007:{c.index}:{idx}")
            ):
                call.resent = True
                self._emit(
                    "T007", f"call {idx}'s whole arguments sent again", ev, f"{where}/function"
                )
            if call.size + len(args) <= self.settings.max_arguments:
                call.parts.append(args)
            call.size += len(args)

    def _continued_call(self, c: _Choice) -> _Call | None:
        """The call a head-less fragment under a new index continues: the last call, while
        its arguments have begun as a JSON object and do not parse yet."""
        call = c.calls.get(c.last_call)
        if call is None or not call.parts or call.size > self.settings.max_arguments:
            return None
        so_far = "".join(call.parts)
        return call if so_far.lstrip().startswith("{") and not _is_json_object(so_far) else None

    def _new_call(
        self,
        ev: Event,
        c: _Choice,
        idx: int,
        tid: str | None,
        name: str | None,
        tc: dict[str, Any],
        fn: dict[str, Any],
        where: str,
    ) -> None:
        if "index" in tc and idx != c.max_call + 1:
            msg = f"new call takes index {idx}, expected {c.max_call + 1}"
            self._emit("I003", msg, ev, f"{where}/index")
        c.max_call = max(c.max_call, idx)
        c.calls[idx] = _Call(idx, tid, name, ev)
        if isinstance(tid, str):
            c.ids[tid] = idx
        if tid is None:
            self._emit("T001", f"the first delta of call {idx} has no id", ev, where)
        if name is None:
            self._emit("T002", f"the first delta of call {idx} has no function.name", ev, where)
        if "type" not in tc:
            self._emit("T003", f"the first delta of call {idx} has no type", ev, where)
        if "arguments" not in fn:
            self._emit("T009", f"the first delta of call {idx} has no arguments", ev, where)
        elif fn.get("arguments"):
            self._emit("T008", f"call {idx}'s first delta carries its arguments", ev, where)

    def _later_delta(
        self, ev: Event, c: _Choice, call: _Call, tid: str | None, name: str | None, where: str
    ) -> None:
        idx = call.index
        if c.last_call != idx and not c.interleave_reported:
            c.interleave_reported = True
            msg = f"call {idx} continues after call {c.last_call} started"
            self._emit("I005", msg, ev, f"{where}/index")
        repeated = False
        if tid is not None:
            if call.id is None:
                call.id = tid
                c.ids[tid] = idx
            elif tid != call.id:
                self._emit("T004", f"call {idx}'s id changes {call.id!r} -> {tid!r}", ev, where)
            else:
                repeated = True
        if name is not None:
            if call.name is None:
                call.name = name
            elif name != call.name:
                msg = f"call {idx}'s name changes {call.name!r} -> {name!r}"
                self._emit("T005", msg, ev, f"{where}/function/name")
            else:
                repeated = True
        if repeated and not call.repeat_reported:
            call.repeat_reported = True
            self._emit("T006", f"a later delta of call {idx} repeats its id or name", ev, where)

    # -- finish ----------------------------------------------------------------------------

    def _finish(self, ev: Event, pos: int, c: _Choice, delta: Any, fr: Any) -> None:
        c.finish = fr if isinstance(fr, str) else str(fr)
        c.finish_frame = ev.frame
        c.finish_event = ev
        c.finish_pos = pos
        where = f"/choices/{pos}/delta"
        if type(delta) is dict and delta:
            if _has_payload(delta):
                self._emit(
                    "F002", f"the finish chunk of choice {c.index} carries a delta", ev, where
                )
            else:
                self._emit("F003", f"the finish delta is {_short(delta)}, not {{}}", ev, where)
        made = bool(c.calls) or c.untracked_calls
        if fr == "tool_calls" and not made:
            self._emit("F008", "finish_reason tool_calls, but no call was made", ev, where)
        elif fr == "stop" and made:
            msg = f"{len(c.calls)} call(s) made but finish_reason is 'stop'"
            self._emit("F007", msg, ev, f"/choices/{pos}/finish_reason")

    def _end_of_stream(self) -> None:
        self._arguments()  # first: the finish chunk's own findings before those about the end
        at_end = self._at_end  # findings about the end: at the last event's start
        if self._awaiting_done is not None:
            at_end("E002", f"the stream ends after the error frame {self._awaiting_done.frame}")
        if self._error_frame is None:
            unfinished = [c.index for c in self._choices.values() if c.finish is None]
            if not self._choices:
                if self._done:
                    at_end("F001", "no chunk with choices before [DONE]")
                else:
                    at_end("E003", "the stream ends with no chunk, no finish and no error")
            elif unfinished:
                if self._done:
                    for i in unfinished:
                        at_end("F001", f"choice {i} never gets a finish_reason")
                else:
                    at_end(
                        "E003",
                        f"the stream stops with choice {unfinished} open: no finish, "
                        "no error frame, no [DONE]",
                    )
            elif not self._done:
                at_end("D001", "the stream does not end with data: [DONE]")

    def _arguments(self) -> None:
        """Each finished call's arguments must parse; reported at the finish chunk that
        declared them complete."""
        for c in self._choices.values():
            if c.finish is None:
                continue
            for call in c.calls.values():
                if call.size > self.settings.max_arguments:
                    what = f"call {call.index} ({call.name!r}, first delta in frame {call.frame})"
                    self._emit(
                        "F011",
                        f"{what}: {call.size} bytes of arguments, over the "
                        f"{self.settings.max_arguments}-byte limit: not parsed as JSON",
                        c.finish_event,
                        f"/choices/{c.finish_pos}/finish_reason",
                    )
                    continue
                if call.resent:
                    continue
                text = "".join(call.parts)
                if not text:
                    continue
                try:
                    orjson.loads(text)
                except orjson.JSONDecodeError as exc:
                    code = "F010" if c.finish == "length" else "F009"
                    what = f"call {call.index} ({call.name!r}, first delta in frame {call.frame})"
                    msg = (
                        f"{what}: arguments are not JSON ({exc.msg} at character {exc.pos} "
                        f"of {len(text)}); they end {text[-40:]!r}"
                    )
                    self._emit(code, msg, c.finish_event, f"/choices/{c.finish_pos}/finish_reason")


_find_literal = find_literal


def _make_template(
    data: str, obj: dict[str, Any], value: str, call: _Call | None
) -> _Template | None:
    """Cut ``data`` around the literal holding ``value`` (delta content or an arguments
    fragment) and around ``obfuscation`` if present, proving every cut with a probe parse;
    None when that cannot be shown."""
    if _PROBE in data:  # the probe must be text no frame holds, or it proves nothing
        return None
    key = "arguments" if call is not None else "content"
    value_span = _find_literal(data, key)
    if value_span is None:
        return None
    spans = [value_span]
    if "obfuscation" in obj:
        pad = _find_literal(data, "obfuscation")
        if pad is None:
            return None
        spans.append(pad)
    spans.sort()
    probes = [f'"{_PROBE}-{n}"' for n in range(len(spans))]
    cut = [0]
    for a, b in spans:
        cut += [a, b]
    cut.append(len(data))
    segments = tuple(data[cut[k] : cut[k + 1]] for k in range(0, len(cut), 2))
    try:
        probe = orjson.loads(
            "".join(seg + p for seg, p in zip(segments, [*probes, ""], strict=True))
        )
        delta = probe["choices"][0]["delta"]
        holder = delta["tool_calls"][0]["function"] if call is not None else delta
        hole = spans.index(value_span)
        if holder[key] != probes[hole][1:-1]:
            return None  # the literal is not the value that counts
        holder[key] = value
        if len(spans) == 2:
            if probe["obfuscation"] != probes[1 - hole][1:-1]:
                return None
            probe["obfuscation"] = obj["obfuscation"]
    except (orjson.JSONDecodeError, KeyError, IndexError, TypeError):
        return None
    if probe != obj:
        return None
    return _Template(segments, hole, call)


def _is_json_object(text: str) -> bool:
    """Whole arguments re-sent are a complete JSON object; short look-alike fragments are not."""
    try:
        return type(orjson.loads(text)) is dict
    except orjson.JSONDecodeError:
        return False


def _has_payload(delta: dict[str, Any]) -> bool:
    for k, v in delta.items():
        if k == "role":
            continue
        if v not in (None, "", [], {}):
            return True
    return False


def _short(obj: Any) -> str:
    s = orjson.dumps(obj).decode()
    return s if len(s) <= 60 else s[:57] + "..."


def _changed(what: str, new: Any, first: Any, previous: Any) -> str:
    before = "" if previous == first else f", then {previous!r}"
    return f"{what} {new!r}; the first chunk had {first!r}{before}"


def _int(value: Any) -> int | None:
    """An integer as JSON Schema counts one: 2 and 2.0 alike (booleans are not numbers)."""
    if type(value) is int:
        return value
    if type(value) is float and value.is_integer():
        return int(value)
    return None


def _seg(key: str) -> str:
    """One JSON Pointer segment (RFC 6901): ``~`` and ``/`` escaped."""
    return key.replace("~", "~0").replace("/", "~1")


def _shape(pointer: str) -> str:
    """A pointer with array positions folded, so an unknown key is reported once per place."""
    return "/".join("*" if p.isdigit() else p for p in pointer.split("/"))


#: What ``rules.grammars`` instantiates for ``--grammar chat``.
CHECKER = StreamChecker
