"""The chat grammar's checker: one pass over a stream, feed/finish, memory that does not grow
with its length.

Bytes go through the SSE decoder (rules.base, shared by every grammar); each frame is parsed
once with orjson, validated once against its schema (jsonschema-rs), then walked: the checker
moves the per-choice and per-call state (``state.py``) and decides what happened (a call whose
index moved, a chunk after its choice's finish); the rules' checks, each in its rule module,
decide what to report, called at the moments of ``hooks.py``. A schema violation at a place a
rule owns is that rule's finding (``HOOKS.claims``), any other J003. Diagnostics are capped
per code so a broken stream of ten million frames cannot pile them up; what was held back is
counted. The two frames long streams are made of (a content delta, the next arguments
fragment) take the template fast path (``rules/delta_template.py``) and reach no moment; in
the plain ``data:`` form they are matched on the bytes, never decoded (the lane, ``rules/base.py``).

Tool-call arguments are the one thing kept whole (to parse them at the end); they are bounded
by ``max_arguments``.

Every diagnostic is located where an event starts (the rule is in ``Finding``'s
docstring): a wire anomaly is held until the event it sits in is dispatched, then placed at
that event's start; findings about the end of the stream are placed at the last event.
"""

from __future__ import annotations

from typing import Any

import orjson

from sseconform.rules import native
from sseconform.rules.base import Checker, Settings
from sseconform.rules.catalog import Rule
from sseconform.rules.chat import hooks as moment
from sseconform.rules.chat.hooks import HOOKS
from sseconform.rules.chat.state import ARGUMENTS, CONTENT, Call, CallHead, Choice
from sseconform.rules.delta_template import DeltaTemplate
from sseconform.rules.lane import Run
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
#: Top-level keys that are no finding: the chunk's, and an error beside them.
KNOWN_TOP_OR_ERROR = KNOWN_TOP | {"error"}
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

_UNSET = object()  # no chunk seen yet: differs from every id, model and created

#: Failing frames up to this long are remembered with their schema violations (bounded).
_BAD_KEY = 1024
_BAD_ENTRIES = 256


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
        self._choices: dict[int, Choice] = {}
        self._max_choice = -1
        self._done = False
        self._after_done_reported = False
        self._error_frame: Event | None = None
        self._awaiting_done: Event | None = None
        self._usage_seen = False
        self._memo = self.settings.memo
        self._frame_start = 0
        self._bad: dict[tuple[str, str], list[tuple[Rule | None, str, str]]] = {}
        self._at = HOOKS.table(self._enabled)

    # -- what rules' checks read (rules/hooks.py) -----------------------------------------

    @property
    def any_content(self) -> bool:
        """Whether a choice's content (text, reasoning, a call, a refusal) has begun."""
        return self._any_content

    @property
    def choices(self) -> dict[int, Choice]:
        """The choices so far, by index (read-only for rules)."""
        return self._choices

    @property
    def done(self) -> bool:
        """Whether `data: [DONE]` came."""
        return self._done

    @property
    def error_frame(self) -> Event | None:
        """The last error frame."""
        return self._error_frame

    @property
    def awaiting_done(self) -> Event | None:
        """An error frame no `[DONE]` (nor other data) has followed yet."""
        return self._awaiting_done

    def over_cap(self, rule: Rule) -> bool:
        """Whether ``rule`` has reached its per-code cap (a check may then skip its work)."""
        return self._counts.get(rule.code, 0) >= self._cap

    # -- frames ----------------------------------------------------------------------------

    def _on_event(self, ev: Event) -> None:
        if self._tmpl is not None and self._by_template(ev):
            return
        self._frame_start = self._emitted
        at = self._at
        if self._done:
            if not self._after_done_reported:
                self._after_done_reported = True
                moment.AFTER_DONE.fire(at, self, ev)
            return
        if ev.event is not None:
            moment.EVENT_NAME.fire(at, self, ev, ev.event)
        self._data_lines(ev)
        data = ev.data
        if data == "[DONE]":
            self._done = True
            self._awaiting_done = None
            return
        if self._awaiting_done is not None:
            err = self._awaiting_done
            self._awaiting_done = None
            moment.DATA_AFTER_ERROR.fire(at, self, ev, err)
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
            moment.NATIVE_PAYLOAD.fire(self._at, self, ev, what)
            if "error" in obj:  # Anthropic's {"type": "error", "error": {...}} is still an error
                self._on_error_frame(ev, obj)
            return True
        self._unknown_keys(ev, obj, KNOWN_TOP_OR_ERROR, "")
        return False

    def _unknown_keys(self, ev: Event, obj: dict[str, Any], known: frozenset[str], at: str) -> None:
        for key in obj:
            if key not in known:
                moment.UNKNOWN_KEY.fire(self._at, self, ev, key, obj[key], f"{at}/{_seg(key)}")

    def _schema(self, name: str, ev: Event, obj: dict[str, Any]) -> None:
        """A schema's verdict depends on the frame alone: a short failing frame seen before
        (a hostile stream repeats one bad frame millions of times) reuses its violations."""
        data = ev.data
        found = self._bad.get((name, data)) if len(data) <= _BAD_KEY else None
        if found is None:
            found = []
            for v in violations(name, obj):
                owner = HOOKS.owner(name, v, obj)
                rule, said = owner if owner is not None else (None, v.message)
                found.append((rule, said, v.pointer))
            if len(data) <= _BAD_KEY and len(self._bad) < _BAD_ENTRIES:
                self._bad[(name, data)] = found
        for rule, message, pointer in found:
            if rule is None:
                self._schema_error(ev, message, pointer)
            else:
                self.report(rule, message, ev, pointer)

    # -- head: id, model, created, failover ------------------------------------------------

    def _head(self, ev: Event, obj: dict[str, Any]) -> None:
        if not self._have_head:
            self._have_head = True
            self._id = self._first_id = obj.get("id")
            self._model = self._first_model = obj.get("model")
            self._created = obj.get("created")
            return
        at, first = self._at, self._first_id
        if obj.get("id") != self._id:  # reported at each change, against the first chunk
            moment.HEAD_CHANGED.fire(at, self, ev, "id", obj.get("id"), first, self._id)
            self._id = obj.get("id")
        if obj.get("model") != self._model:
            first = self._first_model
            moment.HEAD_CHANGED.fire(at, self, ev, "model", obj.get("model"), first, self._model)
            self._model = obj.get("model")
        if obj.get("created") != self._created:  # the first chunk's, never updated
            created = self._created
            moment.HEAD_CHANGED.fire(at, self, ev, "created", obj.get("created"), created, created)

    # -- error frames and usage ------------------------------------------------------------

    def _on_error_frame(self, ev: Event, obj: dict[str, Any]) -> None:
        self._schema(ERROR, ev, obj)
        self._error_frame = ev
        self._awaiting_done = ev

    def _on_usage_chunk(self, ev: Event, obj: dict[str, Any], usage: Any) -> None:
        self._head(ev, obj)
        self._schema(USAGE, ev, obj)
        moment.USAGE_CHUNK.fire(self._at, self, ev)
        self._usage(ev, usage)

    def _usage(self, ev: Event, usage: Any) -> None:
        tokens = read_usage(usage) if isinstance(usage, dict) else None
        moment.USAGE.fire(self._at, self, ev, usage, tokens, self._usage_seen)
        self._usage_seen = True

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
            moment.USAGE_WITH_CHOICES.fire(self._at, self, ev)
            self._usage(ev, usage)
        if type(choices) is not list:
            return
        if not choices:
            moment.CHOICES_EMPTY.fire(self._at, self, ev)
            return
        if len(choices) == 1 and self._fast_path(ev, obj, choices[0]):
            return
        for pos, choice in enumerate(choices):
            if type(choice) is dict:
                self._choice(ev, pos, choice)

    def _fast_path(self, ev: Event, obj: dict[str, Any], ch: Any) -> bool:
        """The two frames that make up nearly every long stream: a mid-stream content delta,
        or the next arguments fragment of the call being streamed. Once the schema passed
        they can break no rule; True when ``ch`` was one (and is taken as the next template)."""
        if type(ch) is not dict or ch.get("finish_reason") is not None:
            return False
        i = ch.get("index")
        c = self._choices.get(i) if type(i) is int else None
        delta = ch.get("delta")
        if (
            c is None
            or not c.content_started
            or c.finish is not None
            or type(delta) is not dict
            or len(delta) != 1
            or not KNOWN_CHOICE.issuperset(ch)
        ):
            return False
        content = delta.get("content")
        if type(content) is str:
            self._remember(ev, obj, CONTENT, None)
            return True
        if content is None:
            call = self._fast_arguments(c, delta.get("tool_calls"))
            if call is not None:
                self._remember(ev, obj, ARGUMENTS, call)
                return True
        return False

    def _remember(
        self, ev: Event, obj: dict[str, Any], path: tuple[str | int, ...], call: Call | None
    ) -> None:
        """Keep a frame that found nothing as the template of the next ones
        (rules/delta_template.py): a content delta, or the next fragment of ``call``."""
        if self._memo and self._emitted == self._frame_start and ev.event is None:
            self._learn(ev, obj, path, call)

    def _fast_arguments(self, c: Choice, tcs: Any) -> Call | None:
        """The next arguments fragment of the call being streamed: append it, nothing else.

        Returns the call, or None when the delta needs the full walk (always, once a call has
        moved index: aliases are the general path's business).
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
        return call

    def _append(self, call: Call, args: str) -> None:
        if call.size + len(args) <= self.settings.max_arguments:
            call.parts.append(args)
        call.size += len(args)

    def _template_take(self, t: DeltaTemplate, run: Run) -> int:
        """Content deltas: all of them. Argument fragments: up to the first that is empty or
        as long as all before it (maybe a resend, T007: the full path decides)."""
        call: Call | None = t.target
        if call is None:
            return run.n
        taken = 0
        for args in run.texts():
            if not args or len(args) == call.size:
                break
            self._append(call, args)
            taken += 1
        return taken

    def _choice(self, ev: Event, pos: int, ch: dict[str, Any]) -> None:
        idx = _int(ch.get("index"))
        if idx is None:
            return
        c = self._choices.get(idx)
        if c is None:
            moment.CHOICE_ADDED.fire(self._at, self, ev, pos, idx, self._max_choice + 1)
            self._max_choice = max(self._max_choice, idx)
            c = self._choices[idx] = Choice(idx)
        if not KNOWN_CHOICE.issuperset(ch):
            self._unknown_keys(ev, ch, KNOWN_CHOICE, f"/choices/{pos}")
        delta = ch.get("delta")
        fr = ch.get("finish_reason")
        if c.finish is not None:
            moment.AFTER_FINISH.fire(self._at, self, ev, pos, c, fr)
            return
        if type(delta) is dict and delta:
            self._delta(ev, pos, c, delta, fr is not None)
        if fr is not None:
            self._finish(ev, pos, c, delta, fr)

    def _delta(self, ev: Event, pos: int, c: Choice, delta: dict[str, Any], fin: bool) -> None:
        if not KNOWN_DELTA.issuperset(delta):
            self._unknown_keys(ev, delta, KNOWN_DELTA, f"/choices/{pos}/delta")
        moment.DELTA.fire(self._at, self, ev, pos, c, delta)
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
            moment.FIRST_DELTA.fire(self._at, self, ev, c, delta, fin)
        elif delta.get("role") is not None:
            if payload:
                if not c.role_repeat_reported:
                    c.role_repeat_reported = True
                    moment.ROLE_REPEATED.fire(self._at, self, ev, pos, c)
            elif c.content_started and not c.role_repeat_reported and not fin:
                moment.ROLE_RESTART.fire(self._at, self, ev, pos, c)
        if payload:
            c.content_started = True
            self._any_content = True
        if type(tool_calls) is list:
            for tpos, tc in enumerate(tool_calls):
                if type(tc) is dict:
                    self._tool_delta(ev, pos, c, tpos, tc)

    # -- tool calls ------------------------------------------------------------------------

    def _tool_delta(self, ev: Event, pos: int, c: Choice, tpos: int, tc: dict[str, Any]) -> None:
        where = f"/choices/{pos}/delta/tool_calls/{tpos}"
        at = self._at
        if not KNOWN_TOOL_CALL.issuperset(tc):
            self._unknown_keys(ev, tc, KNOWN_TOOL_CALL, where)
        moment.TOOL_DELTA.fire(at, self, ev, where, tc)
        tid = tc.get("id") or None
        fn = tc.get("function")
        if type(fn) is not dict:
            fn = {}
        elif not KNOWN_FUNCTION.issuperset(fn):
            self._unknown_keys(ev, fn, KNOWN_FUNCTION, f"{where}/function")
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
                moment.CALL_CONTINUED.fire(at, self, ev, where, idx, moved)
                c.alias[idx] = moved.index
                idx = moved.index
                call = moved
        if isinstance(tid, str) and tid in c.ids and c.ids[tid] != idx:
            old = c.ids[tid]
            moment.CALL_MOVED.fire(at, self, ev, where, tid, old, idx)
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
                and self._once_key(f"resent:{c.index}:{idx}")
            ):
                call.resent = True
                moment.ARGUMENTS_RESENT.fire(at, self, ev, where, idx)
            if call.size + len(args) <= self.settings.max_arguments:
                call.parts.append(args)
            call.size += len(args)

    def _continued_call(self, c: Choice) -> Call | None:
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
        c: Choice,
        idx: int,
        tid: str | None,
        name: str | None,
        tc: dict[str, Any],
        fn: dict[str, Any],
        where: str,
    ) -> None:
        moment.CALL_ADDED.fire(self._at, self, ev, CallHead(c, idx, tid, name, tc, fn, where))
        c.max_call = max(c.max_call, idx)
        c.calls[idx] = Call(idx, tid, name, ev)
        if isinstance(tid, str):
            c.ids[tid] = idx

    def _later_delta(
        self, ev: Event, c: Choice, call: Call, tid: str | None, name: str | None, where: str
    ) -> None:
        idx = call.index
        at = self._at
        if c.last_call != idx and not c.interleave_reported:
            c.interleave_reported = True
            moment.CALL_INTERLEAVED.fire(at, self, ev, where, idx, c.last_call)
        repeated = False
        if tid is not None:
            if call.id is None:
                call.id = tid
                c.ids[tid] = idx
            elif tid != call.id:
                moment.CALL_CHANGED.fire(at, self, ev, where, call, "id", tid)
            else:
                repeated = True
        if name is not None:
            if call.name is None:
                call.name = name
            elif name != call.name:
                moment.CALL_CHANGED.fire(at, self, ev, where, call, "name", name)
            else:
                repeated = True
        if repeated and not call.repeat_reported:
            call.repeat_reported = True
            moment.CALL_HEAD_REPEATED.fire(at, self, ev, where, idx)

    # -- finish ----------------------------------------------------------------------------

    def _finish(self, ev: Event, pos: int, c: Choice, delta: Any, fr: Any) -> None:
        c.finish = fr if isinstance(fr, str) else str(fr)
        c.finish_frame = ev.frame
        c.finish_event = ev
        c.finish_pos = pos
        moment.FINISH.fire(self._at, self, ev, pos, c, delta, fr)

    def _end_of_stream(self) -> None:
        self._arguments()  # first: the finish chunk's own findings before those about the end
        moment.END.fire(self._at, self)

    def _arguments(self) -> None:
        """Each finished call's arguments must parse; reported at the finish chunk that
        declared them complete."""
        at = self._at
        for c in self._choices.values():
            if c.finish is None:
                continue
            for call in c.calls.values():
                if call.size > self.settings.max_arguments:
                    moment.ARGUMENTS_TOO_LARGE.fire(at, self, c, call)
                    continue
                text = "" if call.resent else "".join(call.parts)
                if not text:
                    continue
                try:
                    orjson.loads(text)
                except orjson.JSONDecodeError as exc:
                    moment.ARGUMENTS_INVALID.fire(at, self, c, call, text, exc)


def _is_json_object(text: str) -> bool:
    """Whole arguments re-sent are a complete JSON object; short look-alike fragments are not."""
    try:
        return type(orjson.loads(text)) is dict
    except orjson.JSONDecodeError:
        return False


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


#: What ``rules.grammars`` instantiates for ``--grammar chat``.
CHECKER = StreamChecker
