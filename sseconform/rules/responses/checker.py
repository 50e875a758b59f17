"""The Responses API grammar's checker: one pass over a stream of typed events, feed/finish.

Each event is parsed once (orjson), its ``type`` picks its JSON Schema (jsonschema-rs) and
its handler. The state is per output item and per part (``state.py``): ids, types, indices,
and running digests of the streamed strings, so ``*.done`` events, ``output_item.done`` and
the terminal event's ``output`` are compared with what the deltas built without keeping the
text. Function-call arguments are parsed where they arrive whole, at
``function_call_arguments.done``, up to ``max_arguments``.

The checker decides what happened (an index no event added, a second ``.done``, the terminal
event); the rules' checks, each in its rule module, decide what to report, called at the
moments of ``hooks.py`` (only the enabled rules' checks: ``HOOKS.table``). Every finding
is located at the start of the event it is about; findings about the end of the stream at
the last event.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any, ClassVar

import orjson

from sseconform.providers import ANTHROPIC_EVENTS
from sseconform.rules.base import Checker, Settings
from sseconform.rules.delta_template import DeltaTemplate
from sseconform.rules.lane import Run
from sseconform.rules.responses import hooks as moment
from sseconform.rules.responses.events import (
    AUDIO_EVENTS,
    BODY_EVENTS,
    JSON_BODIES,
    LIFECYCLE,
    TERMINAL,
    TEXT_EVENTS,
    TOOL_EVENTS,
)
from sseconform.rules.responses.hooks import HOOKS
from sseconform.rules.responses.state import Acc, Item, Part, as_int, combined, digest, signature
from sseconform.rules.schema import error_path, pointer_of, validator
from sseconform.sse.decoder import Event

__all__ = ["CHECKER", "ResponsesChecker"]

#: At most this many items and parts, in all, are assumed to precede a resumed stream's
#: first event: past it, an event about one is what it would be in any stream (S020, S024).
MAX_UNSEEN = 1024


@cache
def _schema_names() -> frozenset[str]:
    """The event types with a schema in ``schemas/responses`` (read once)."""
    from sseconform.rules.schema import schema_dir

    folder = schema_dir() / "responses"
    return frozenset(p.name.removesuffix(".schema.json") for p in folder.glob("*.schema.json"))


class ResponsesChecker(Checker):
    """The responses grammar: ``response.*`` events, ``error``, one terminal event."""

    grammar = "responses"
    #: The events came over a WebSocket (:mod:`~sseconform.rules.responses.session`), not SSE.
    OVER_WEBSOCKET: ClassVar[bool] = False

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        self._known = _schema_names()
        self._text_events = TEXT_EVENTS
        self._valid: dict[str, Callable[[Any], bool]] = {}
        self._typed = False  # an event with a string `type` was seen
        self._created = False
        self._response_id: Any = None
        self._seq: int | None = None  # the last sequence_number
        #: A resumed stream (``starting_after``): items and parts begun before its first event
        #: are taken as they come (``Item.partial``), not reported as never added.
        self._resumed = self.settings.resumed is True
        self._memo = self.settings.memo
        self._frame_start = 0
        self._first_added: int | None = None  # the first output_index added in this stream
        self._unseen_left = MAX_UNSEEN  # items and parts still assumable before the stream
        self._items: dict[int, Item] = {}
        self._max_index = -1
        self._terminal: Event | None = None
        self._error: Event | None = None
        self._done_sentinel = False
        self._audio_done: set[str] = set()  # the AUDIO_EVENTS whose .done has come
        #: A call's arguments that did not parse, held until the terminal event says whether
        #: max_output_tokens cut them (S072) or not (S032): (its event, message, pointer).
        self._cut: tuple[Event, str, str] | None = None
        self._at = HOOKS.table(self._enabled)
        self._handlers: dict[str, Callable[[Event, dict[str, Any], str], None]] = {
            "response.output_item.added": self._item_added,
            "response.output_item.done": self._item_done,
            "response.content_part.added": self._part_added,
            "response.content_part.done": self._part_done,
            "response.reasoning_summary_part.added": self._part_added,
            "response.reasoning_summary_part.done": self._part_done,
            "response.output_text.annotation.added": self._annotation,
            "error": self._error_event,
        }
        for name in LIFECYCLE:
            self._handlers[name] = self._lifecycle
        for name in TERMINAL:
            self._handlers[name] = self._terminal_event
        for prefix in TEXT_EVENTS:
            self._handlers[prefix + ".delta"] = self._text_delta
            self._handlers[prefix + ".done"] = self._text_done
        for prefix in BODY_EVENTS:
            self._handlers[prefix + ".delta"] = self._body_delta
            self._handlers[prefix + ".done"] = self._body_done
        for prefix in AUDIO_EVENTS:
            self._handlers[prefix + ".delta"] = self._audio
            self._handlers[prefix + ".done"] = self._audio
        for name in self._known:  # each hosted tool's phases: the ones it has a schema for
            if name.rsplit(".", 1)[0] in TOOL_EVENTS:
                self._handlers[name] = self._tool_event

    # -- what rules' checks read (rules/hooks.py) -----------------------------------------

    @property
    def terminal(self) -> Event | None:
        """The first terminal event (``response.completed``, ``.incomplete``, ``.failed``)."""
        return self._terminal

    @property
    def error(self) -> Event | None:
        """The first ``error`` event."""
        return self._error

    @property
    def done_sentinel(self) -> bool:
        """Whether a ``data: [DONE]`` came."""
        return self._done_sentinel

    def part_named(self, obj: dict[str, Any]) -> Part | None:
        """The content part an event names (``output_index``, ``content_index``), if the
        stream added it; nothing is reported (resolving and its findings are the checker's)."""
        idx, ci = obj.get("output_index"), obj.get("content_index")
        item = self._items.get(idx) if type(idx) is int else None
        if item is None or type(ci) is not int or not 0 <= ci < len(item.parts):
            return None
        return item.parts[ci]

    @property
    def resumed(self) -> bool:
        """Whether the stream is read as resumed (``starting_after``)."""
        return self._resumed

    @property
    def items(self) -> dict[int, Item]:
        """The output items so far, by output_index (read-only for rules)."""
        return self._items

    # -- every event -----------------------------------------------------------------------

    def _template_take(self, t: DeltaTemplate, run: Run) -> int:
        """The deltas that fit the template up to the first whose sequence number is not
        the next one."""
        last = self._seq
        if last is None:
            return 0
        seqs = run.seqs
        n = run.n
        if seqs != list(range(last + 1, last + 1 + n)):
            n = 0
            for q in seqs:
                if q != last + 1:
                    break
                last = q
                n += 1
        if n:
            self._seq = seqs[n - 1]
            t.target.add_all(run.text(n), n)
        return n

    def _on_event(self, ev: Event) -> None:
        if self._tmpl is not None and self._by_template(ev):
            return
        self._frame_start = self._emitted
        data = ev.data
        self._data_lines(ev)
        if data == "[DONE]":
            self._done_sentinel_event(ev)
            return
        obj = self._json_object(ev)
        if obj is None:
            return
        kind = obj.get("type")
        at = self._at
        if type(kind) is not str:
            self._untyped(ev, obj)
            return
        self._event_name(ev, kind)
        if kind in ANTHROPIC_EVENTS:  # a leak: nothing else is read of it
            moment.FOREIGN_EVENT.fire(at, self, ev, kind)
            return
        moment.EVENT.fire(at, self, ev, obj, kind)
        if not self._typed:
            self._typed = True
            self._resume_point(ev, obj)
            moment.FIRST.fire(at, self, ev, kind)
        self._sequence(ev, obj)
        self._validate(ev, obj, kind)
        moment.CHECKED.fire(at, self, ev, obj, kind)
        handler = self._handlers.get(kind)
        if handler is not None:
            handler(ev, obj, kind)
        else:
            self._unknown_event(ev, obj, kind)

    def _untyped(self, ev: Event, obj: dict[str, Any]) -> None:
        moment.UNTYPED.fire(self._at, self, ev, obj)

    def _event_name(self, ev: Event, kind: str) -> None:
        """The `event:` line against the data's type."""
        moment.EVENT_NAME.fire(self._at, self, ev, kind)

    def _validate(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        """The event against its schema, when it has one."""
        if kind in self._known:
            ok = self._valid.get(kind)
            if ok is None:
                ok = self._valid[kind] = validator("responses/" + kind).is_valid
            if not ok(obj):
                self._violations(kind, ev, obj)

    def _violations(self, kind: str, ev: Event, obj: dict[str, Any]) -> None:
        try:
            errors = list(validator("responses/" + kind).iter_errors(obj))
        except (ValueError, RecursionError) as exc:
            self._schema_error(ev, f"the event is nested too deeply to validate ({exc})")
            return
        if kind == "error":
            moment.ERROR_INVALID.fire(self._at, self, ev, errors)
            return
        for err in errors:
            self._schema_error(ev, f"{kind}: {err.message}", pointer_of(error_path(err)))

    def _unknown_event(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        """An event type no handler knows: noted once, its references still checked."""
        moment.UNKNOWN_EVENT.fire(self._at, self, ev, kind)
        self._refs(ev, obj, kind, need_item=False)

    def _resume_point(self, ev: Event, obj: dict[str, Any]) -> None:
        """Whether the stream was resumed: declared, or told by a first sequence_number past 0;
        where declared with its ``starting_after``, its first event must be the next one."""
        n = as_int(obj.get("sequence_number"))
        after = self.settings.starting_after
        if self.settings.resumed is None:
            if n is None or n <= 0:
                return
            self._resumed = True
            said = f"the first event is sequence_number {n}: read as resumed after {n - 1}"
        elif not self._resumed:
            return
        else:
            said = "declared resumed" + (f" after {after}" if after is not None else "")
        moment.RESUMED.fire(self._at, self, ev, said)
        if after is not None and n is not None and n != after + 1:
            self._seq = after  # the sequence check then says what is missing or repeated
        elif n is not None:
            self._seq = n - 1

    def _done_sentinel_event(self, ev: Event) -> None:
        if not self._done_sentinel:
            self._done_sentinel = True
            moment.DONE_SENTINEL.fire(self._at, self, ev)

    def _sequence(self, ev: Event, obj: dict[str, Any]) -> None:
        n = obj.get("sequence_number")
        last = self._seq
        if n is None and self.OVER_WEBSOCKET and obj.get("type") == "error":
            return  # the WebSocket mode's error event (status + nested error) has no number
        if type(n) is int:
            self._seq = n
            if last is None or n == last + 1:
                return
        moment.SEQUENCE.fire(self._at, self, ev, n, last)

    # -- references ------------------------------------------------------------------------

    def _refs(self, ev: Event, obj: dict[str, Any], kind: str, *, need_item: bool) -> Item | None:
        """The item an event is about, by output_index (and item_id when it has one)."""
        idx = as_int(obj.get("output_index"))
        if idx is None:
            return None
        item = self._items.get(idx)
        if item is None and self._unseen(idx):
            item_id = obj.get("item_id")
            item = Item(idx, {"id": item_id if isinstance(item_id, str) else None}, partial=True)
            self._unseen_left -= 1
            self._items[idx] = item
            self._max_index = max(self._max_index, idx)
        if item is None:
            moment.UNRESOLVED.fire(self._at, self, ev, kind, idx)
            return None
        moment.REF.fire(self._at, self, ev, obj, kind, item, need_item)
        return item

    def _unseen(self, idx: int) -> bool:
        """True when ``output_index idx`` may have been added before a resumed stream's first
        event: items are added in order, so only below the first one added in the stream."""
        return (
            self._resumed
            and idx >= 0
            and self._unseen_left > 0
            and (self._first_added is None or idx < self._first_added)
        )

    def _unseen_parts(self, item: Item, summary: bool, i: int, added: bool) -> bool:
        """Whether parts up to ``i`` of a resumed stream's item may predate the stream (and
        are now assumed): only below the first part index the stream names for it, within
        the stream's budget. ``added``: the first such event adds part ``i`` itself."""
        if not item.partial or i < 0:
            return False
        which = 1 if summary else 0
        if item.unseen[which] < 0:
            item.unseen[which] = i if added else i + 1
        parts = item.summary if summary else item.parts
        need = (i if added else i + 1) - len(parts)
        if need <= 0 or i >= item.unseen[which] + (1 if added else 0) or need > self._unseen_left:
            return False
        self._unseen_left -= need
        return True

    def _item_of_type(self, ev: Event, obj: dict[str, Any], kind: str, want: str) -> Item | None:
        item = self._refs(ev, obj, kind, need_item=True)
        if item is not None and item.partial and item.type is None:
            item.type = want  # an item of a resumed stream, known by the events about it
        if item is not None and item.type != want:
            moment.WRONG_TYPE.fire(self._at, self, ev, kind, "item", item, want, "/output_index")
            return None
        return item

    def _part(
        self, ev: Event, obj: dict[str, Any], kind: str, where: str, want: str | None
    ) -> Part | None:
        """The part an event is about, in ``where`` (content or summary) of its item."""
        item = self._refs(ev, obj, kind, need_item=True)
        if item is None or item.done:
            return None
        key = "summary_index" if where == "summary" else "content_index"
        i = as_int(obj.get(key))
        if i is None:
            return None
        parts = item.summary if where == "summary" else item.parts
        if i >= len(parts) and self._unseen_parts(item, where == "summary", i, added=False):
            while len(parts) <= i:  # begun before a resumed stream's first event
                parts.append(Part(want or "", "", partial=True))
        if i < 0 or i >= len(parts):
            if not item.lost:  # the cause once; the item's later events follow from it
                item.lost = True
                moment.PART_UNKNOWN.fire(self._at, self, ev, kind, key, i, item)
            return None
        part = parts[i]
        if want is not None and part.partial and not part.kind:
            part.kind = want
        if want is not None and part.kind != want:
            moment.WRONG_TYPE.fire(self._at, self, ev, kind, "part", part, want, "/" + key)
            return None
        return part

    # -- lifecycle and the end -------------------------------------------------------------

    def _response_identity(self, ev: Event, obj: dict[str, Any]) -> dict[str, Any] | None:
        response = obj.get("response")
        if type(response) is not dict:
            return None
        rid = response.get("id")
        if self._response_id is None:
            self._response_id = rid
        elif rid != self._response_id:
            moment.RESPONSE_ID.fire(self._at, self, ev, rid, self._response_id)
        return response

    def _lifecycle(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        if kind == "response.created":
            moment.CREATED.fire(self._at, self, ev, self._created)
            self._created = True
        self._response_identity(ev, obj)

    def _terminal_event(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        if self._terminal is not None:
            moment.TERMINAL_AGAIN.fire(self._at, self, ev, kind)
            return
        self._terminal = ev
        if self._cut is not None:
            raw = obj.get("response")
            details = raw.get("incomplete_details") if type(raw) is dict else None
            reason = details.get("reason") if type(details) is dict else None
            self._flush_cut(cut=kind == "response.incomplete" and reason == "max_output_tokens")
        response = self._response_identity(ev, obj)
        if response is not None:
            moment.TERMINAL.fire(self._at, self, ev, kind, response)

    def _end_of_stream(self) -> None:
        self._flush_cut()
        moment.END.fire(self._at, self)

    # -- items and parts -------------------------------------------------------------------

    def _item_added(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        idx = as_int(obj.get("output_index"))
        item = obj.get("item")
        if idx is None or type(item) is not dict:
            return
        if idx in self._items:
            moment.INDEX_REUSED.fire(self._at, self, ev, idx)
            return
        first_of_resumed = self._resumed and self._first_added is None and idx > self._max_index
        moment.ITEM_ADDED.fire(self._at, self, ev, idx, self._max_index + 1, first_of_resumed)
        self._max_index = max(self._max_index, idx)
        self._items[idx] = Item(idx, item)
        if self._first_added is None:
            self._first_added = idx

    def _item_done(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        got = obj.get("item")
        item = self._refs(ev, obj, kind, need_item=False)
        if item is None or type(got) is not dict:
            return
        if item.done:
            moment.DONE_AGAIN.fire(self._at, self, ev, kind, item.index)
            return
        item.done = True
        values = signature(got)
        moment.ITEM_DONE.fire(self._at, self, ev, item, got, values)
        built = item.built()
        accepted = {
            label: {digest(text)} | (built[label][0].accepted() if label in built else set())
            for label, text in values.items()
        }
        if all(len(a) == 1 for a in accepted.values()):
            item.final = combined({label: next(iter(a)) for label, a in accepted.items()})
        else:
            item.final = accepted
        item.parts = []  # what is done is kept as its digest only: memory per item stays small
        item.summary = []
        item.body = None
        item.id = got.get("id", item.id)
        item.type = got.get("type", item.type)

    def _part_added(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        item = self._refs(ev, obj, kind, need_item=True)
        part = obj.get("part")
        if item is None or type(part) is not dict:
            return
        summary = kind.startswith("response.reasoning_summary")
        key = "summary_index" if summary else "content_index"
        want = ("reasoning",) if summary else ("message", "reasoning")
        if item.type not in want and not (item.partial and item.type is None):
            moment.WRONG_TYPE.fire(
                self._at, self, ev, kind, "part-on-item", item, want, "/output_index"
            )
            return
        i = as_int(obj.get(key))
        if i is None:
            return
        parts = item.summary if summary else item.parts
        if len(parts) < i and self._unseen_parts(item, summary, i, added=True):
            while len(parts) < i:  # the item's earlier parts came before a resumed stream
                parts.append(Part("", "", partial=True))
        if i != len(parts):
            moment.PART_SKIPPED.fire(self._at, self, ev, key, i, item, len(parts))
            return
        pkind = part.get("type")
        seed = part.get("refusal") if pkind == "refusal" else part.get("text")
        parts.append(
            Part(pkind if isinstance(pkind, str) else "", seed if type(seed) is str else "")
        )

    def _part_done(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        summary = kind.startswith("response.reasoning_summary")
        got = obj.get("part")
        p = self._part(ev, obj, kind, "summary" if summary else "content", None)
        if p is None or type(got) is not dict:
            return
        if p.done:
            moment.DONE_AGAIN.fire(self._at, self, ev, kind, None)
            return
        p.done = True
        if p.partial and not p.kind and isinstance(got.get("type"), str):
            p.kind = got["type"]  # a part begun before a resumed stream: known by its done
        moment.PART_DONE.fire(self._at, self, ev, kind, p, got, summary)
        text = got.get("refusal") if got.get("type") == "refusal" else got.get("text")
        if (got.get("type") == p.kind or summary) and isinstance(text, str):
            p.acc.adopt(text)

    def _annotation(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        self._part(ev, obj, kind, "content", "output_text")

    # -- streamed strings ------------------------------------------------------------------

    def _text_delta(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        pkind, _, where = self._text_events[kind[:-6]]
        p = self._part(ev, obj, kind, where, pkind)
        delta = obj.get("delta")
        if p is not None and type(delta) is str:
            moment.DELTA.fire(self._at, self, ev, kind, p)
            p.acc.add(delta)
            self._remember(ev, obj, p.acc)

    def _text_done(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        pkind, field, where = self._text_events[kind[:-5]]
        p = self._part(ev, obj, kind, where, pkind)
        text = obj.get(field)
        if p is None or type(text) is not str:
            return
        acc = p.acc
        if acc.done:
            moment.DONE_AGAIN.fire(self._at, self, ev, kind, None)
            return
        acc.done = True
        moment.TEXT_DONE.fire(self._at, self, ev, kind, field, text, acc)
        acc.adopt(text)

    def _body_delta(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        want, _ = BODY_EVENTS[kind[:-6]]
        item = self._item_of_type(ev, obj, kind, want)
        delta = obj.get("delta")
        if item is not None and item.body is not None and type(delta) is str:
            item.body.add(delta)
            self._remember(ev, obj, item.body)

    def _remember(self, ev: Event, obj: dict[str, Any], target: Acc) -> None:
        """Keep a delta that found nothing as the template of the next ones (template.py):
        only while nothing but deltas can follow without the full path."""
        if (
            self._memo
            and self._emitted == self._frame_start
            and ev.data_lines == 1
            and self._terminal is None
            and self._error is None
            and not self._done_sentinel
        ):
            self._learn(ev, obj, ("delta",), target, seq=True)

    def _body_done(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        prefix = kind[:-5]
        want, field = BODY_EVENTS[prefix]
        item = self._item_of_type(ev, obj, kind, want)
        text = obj.get(field)
        if item is None or item.body is None or type(text) is not str:
            return
        acc = item.body
        if acc.done:
            moment.DONE_AGAIN.fire(self._at, self, ev, kind, item.index)
            return
        acc.done = True
        moment.BODY_DONE.fire(self._at, self, ev, kind, field, text, acc)
        acc.adopt(text)
        if prefix in JSON_BODIES:
            self._json_arguments(ev, text, field)

    def _json_arguments(self, ev: Event, text: str, field: str) -> None:
        if len(text) > self.settings.max_arguments:
            moment.ARGUMENTS_TOO_LARGE.fire(self._at, self, ev, text, field)
            return
        try:
            orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            self._flush_cut()  # an earlier call was not the last one: no token limit cut it
            self._cut = (ev, f"arguments are not JSON ({exc}): {text[:40]!r}", "/" + field)

    def _flush_cut(self, *, cut: bool = False) -> None:
        """Report held arguments: cut by max_output_tokens, or not."""
        held, self._cut = self._cut, None
        if held is not None:
            ev, said, pointer = held
            moment.ARGUMENTS_INVALID.fire(self._at, self, ev, said, pointer, cut)

    def _audio(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        """The response's audio or its transcript: nothing of it after its ``.done``."""
        prefix, _, phase = kind.rpartition(".")
        if prefix in self._audio_done:
            moment.AUDIO_AFTER_DONE.fire(self._at, self, ev, kind, prefix)
        elif phase == "done":
            self._audio_done.add(prefix)

    def _tool_event(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        want = TOOL_EVENTS[kind.rsplit(".", 1)[0]]
        if want:
            self._item_of_type(ev, obj, kind, want)
        else:
            self._refs(ev, obj, kind, need_item=True)

    def _error_event(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        if self._error is None:
            self._error = ev


CHECKER = ResponsesChecker
