"""The Responses API grammar's checker: one pass over a stream of typed events, feed/finish.

Each event is parsed once (orjson), its ``type`` picks its JSON Schema (jsonschema-rs) and
its handler. The state is per output item and per part (``state.py``): ids, types, indices,
and running digests of the streamed strings, so ``*.done`` events, ``output_item.done`` and
the terminal event's ``output`` are compared with what the deltas built without keeping the
text. Function-call arguments are parsed where they arrive whole, at
``function_call_arguments.done``, up to ``max_arguments``.

Every finding is located at the start of the event it is about; findings about the end of
the stream at the last event (``_at_end``).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import orjson

from sseconform.rules.base import Checker, Settings
from sseconform.rules.delta_template import DeltaTemplate, make_template
from sseconform.rules.responses.state import Acc, Item, Part, combined, digest, signature
from sseconform.rules.schema import error_path, pointer_of, validator
from sseconform.sse.decoder import Event

__all__ = ["CHECKER", "ResponsesChecker"]

LIFECYCLE = frozenset({"response.created", "response.queued", "response.in_progress"})
TERMINAL: dict[str, str] = {
    "response.completed": "completed",
    "response.incomplete": "incomplete",
    "response.failed": "failed",
}

#: Text deltas and their ``.done``: event prefix -> (part kind, field of the .done, where).
TEXT_EVENTS: dict[str, tuple[str, str, str]] = {
    "response.output_text": ("output_text", "text", "content"),
    "response.refusal": ("refusal", "refusal", "content"),
    "response.reasoning_text": ("reasoning_text", "text", "content"),
    "response.reasoning_summary_text": ("summary_text", "text", "summary"),
}
#: Item-level streamed strings: event prefix -> (item type, field of the .done).
BODY_EVENTS: dict[str, tuple[str, str]] = {
    "response.function_call_arguments": ("function_call", "arguments"),
    "response.custom_tool_call_input": ("custom_tool_call", "input"),
    "response.mcp_call_arguments": ("mcp_call", "arguments"),
    "response.code_interpreter_call_code": ("code_interpreter_call", "code"),
    "response.apply_patch_call_operation_diff": ("apply_patch_call", "diff"),
}
#: Hosted tools' progress events: event prefix -> the item type they are about.
TOOL_EVENTS: dict[str, str] = {
    "response.file_search_call": "file_search_call",
    "response.web_search_call": "web_search_call",
    "response.code_interpreter_call": "code_interpreter_call",
    "response.image_generation_call": "image_generation_call",
    "response.mcp_call": "mcp_call",
    "response.mcp_list_tools": "mcp_list_tools",
    "response.shell_call_command": "",  # on the shell call or its output item: any type
    "response.shell_call_output_content": "",
    "response.compaction": "compaction",  # .compacting: a compaction item being summarised
}
#: The response's own audio and its transcript (no item, no index): deltas, then one .done.
AUDIO_EVENTS = ("response.audio", "response.audio.transcript")
#: Items whose call_id and name a client sends back: they may not change once added.
CALLS = frozenset({"function_call", "custom_tool_call"})
#: Hosted-tool items the provider may finish only in the terminal output (OpenAI does, for
#: ``mcp_list_tools``), with no ``output_item.done``: no client reads their ``.done``.
TERMINAL_ONLY = frozenset({"mcp_list_tools"})
#: At most this many items and parts, in all, are assumed to precede a resumed stream's
#: first event: past it, an event about one is what it would be in any stream (S020, S024).
MAX_UNSEEN = 1024
#: Arguments that must parse as JSON at their ``.done``.
JSON_BODIES = frozenset({"response.function_call_arguments", "response.mcp_call_arguments"})

#: Anthropic Messages event types: one of them in a Responses stream is a leak.
ANTHROPIC_TYPES = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
    }
)


@cache
def _schema_names() -> frozenset[str]:
    """The event types with a schema in ``schemas/responses`` (read once)."""
    from sseconform.rules.schema import schema_dir

    folder = schema_dir() / "responses"
    return frozenset(p.name.removesuffix(".schema.json") for p in folder.glob("*.schema.json"))


def _int(v: Any) -> int | None:
    return v if type(v) is int else None


class ResponsesChecker(Checker):
    """The responses grammar: ``response.*`` events, ``error``, one terminal event."""

    grammar = "responses"

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
        self._tmpl: DeltaTemplate | None = None  # the last delta, checked in full (template.py)
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

    # -- every event -----------------------------------------------------------------------

    def _on_event(self, ev: Event) -> None:
        t = self._tmpl
        if t is not None:
            if ev.event == t.event and ev.data_lines == 1:
                got = t.match(ev.data)
                if got is not None and self._seq is not None and got[1] == self._seq + 1:
                    self._seq = got[1]
                    t.target.add(got[0])
                    return
            self._tmpl = None
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
        if type(kind) is not str:
            self._untyped(ev, obj)
            return
        self._event_name(ev, kind)
        if kind in ANTHROPIC_TYPES:
            self._emit("S063", f"an Anthropic event ({kind!r}) in a Responses stream", ev, "/type")
            return
        if self._terminal is not None and self._once_key("S042"):
            self._emit(
                "S042",
                f"{kind} after the terminal event (frame {self._terminal.frame})",
                ev,
            )
        if not self._typed:
            self._typed = True
            self._resume_point(ev, obj)
            # background mode (`background: true`) may open with response.queued, before
            # response.created or instead of it: OpenAI's own streams do
            if not self._resumed and kind not in ("response.created", "response.queued", "error"):
                self._emit("S001", f"the first event is {kind}, not response.created", ev, "/type")
        self._sequence(ev, obj)
        self._validate(ev, obj, kind)
        if (
            self._error is not None
            and self._terminal is None
            and kind not in TERMINAL
            and kind != "error"
            and self._once_key("S051")
        ):
            self._emit("S051", f"{kind} after the error event at frame {self._error.frame}", ev)
        handler = self._handlers.get(kind)
        if handler is not None:
            handler(ev, obj, kind)
        else:
            self._unknown_event(ev, obj, kind)

    def _event_name(self, ev: Event, kind: str) -> None:
        """The `event:` line against the data's type."""
        if ev.event is None:
            if self._once_key("S071"):
                self._emit("S071", f"no `event:` line (data type {kind!r}; first here)", ev)
        elif ev.event != kind:
            self._emit("S070", f"`event: {ev.event}` but data type {kind!r}", ev)

    def _validate(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        """The event against its schema, when it has one."""
        if kind in self._known:
            ok = self._valid.get(kind)
            if ok is None:
                ok = self._valid[kind] = validator("responses/" + kind).is_valid
            if not ok(obj):
                self._violations(kind, ev, obj)

    def _unknown_event(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        """An event type no handler knows: noted once, its references still checked."""
        if self._once_key("S065:" + kind):
            self._emit("S065", f"event type {kind!r} is not one this grammar knows", ev, "/type")
        self._refs(ev, obj, kind, need_item=False)

    def _resume_point(self, ev: Event, obj: dict[str, Any]) -> None:
        """Whether the stream was resumed: declared, or told by a first sequence_number past 0;
        where declared with its ``starting_after``, its first event must be the next one."""
        n = _int(obj.get("sequence_number"))
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
        self._emit("S013", f"{said}; items begun before it are taken as they come", ev)
        if after is not None and n is not None and n != after + 1:
            self._seq = after  # _sequence then says what is missing or repeated
        elif n is not None:
            self._seq = n - 1

    def _untyped(self, ev: Event, obj: dict[str, Any]) -> None:
        if obj.get("object") == "chat.completion.chunk" or "choices" in obj:
            self._emit("S062", "a chat.completion.chunk in a Responses stream", ev)
        else:
            self._emit("S064", "an event whose data has no string `type`", ev, "/type")

    def _done_sentinel_event(self, ev: Event) -> None:
        if self._done_sentinel:
            return
        self._done_sentinel = True
        if self._terminal is not None:
            self._emit("S060", "`data: [DONE]` after the terminal event (a chat shape)", ev)
        else:
            self._emit(
                "S061",
                "`data: [DONE]` before any terminal event: openai-python stops reading here",
                ev,
            )

    def _violations(self, kind: str, ev: Event, obj: dict[str, Any]) -> None:
        try:
            errors = list(validator("responses/" + kind).iter_errors(obj))
        except (ValueError, RecursionError) as exc:
            self._emit("J003", f"the event is nested too deeply to validate ({exc})", ev)
            return
        code = "S050" if kind == "error" else "J003"
        for err in errors:
            self._emit(code, f"{kind}: {err.message}", ev, pointer_of(error_path(err)))

    def _sequence(self, ev: Event, obj: dict[str, Any]) -> None:
        n = obj.get("sequence_number")
        if type(n) is not int:
            if n is None and self._once_key("S012"):
                self._emit("S012", "an event without sequence_number (first here)", ev)
            return
        last = self._seq
        self._seq = n
        if last is None or n == last + 1:
            return
        if n <= last:
            self._emit("S011", f"sequence_number {n} after {last}", ev, "/sequence_number")
        else:
            self._emit(
                "S010",
                f"sequence_number {n} after {last}: {n - last - 1} missing",
                ev,
                "/sequence_number",
            )

    # -- references ------------------------------------------------------------------------

    def _refs(self, ev: Event, obj: dict[str, Any], kind: str, *, need_item: bool) -> Item | None:
        """The item an event is about, by output_index (and item_id when it has one)."""
        idx = _int(obj.get("output_index"))
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
            self._emit("S020", f"{kind} for output_index {idx}, never added", ev, "/output_index")
            return None
        item_id = obj.get("item_id")
        if isinstance(item_id, str) and item.id is not None and item_id != item.id:
            self._emit(
                "S021",
                f"item_id {item_id!r}, but output_index {idx} is item {item.id!r}",
                ev,
                "/item_id",
            )
        if need_item and item.done:
            self._emit("S026", f"{kind} for output_index {idx}, already done", ev, "/output_index")
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
            self._emit(
                "S027",
                f"{kind} for output_index {item.index}, a {item.type} item, not {want}",
                ev,
                "/output_index",
            )
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
        i = _int(obj.get(key))
        if i is None:
            return None
        parts = item.summary if where == "summary" else item.parts
        if i >= len(parts) and self._unseen_parts(item, where == "summary", i, added=False):
            while len(parts) <= i:  # begun before a resumed stream's first event
                parts.append(Part(want or "", "", partial=True))
        if i < 0 or i >= len(parts):
            if not item.lost:  # the cause once; the item's later events follow from it
                item.lost = True
                self._emit(
                    "S024",
                    f"{kind} for {key} {i} of output_index {item.index}, never added "
                    "(later events for this item's missing parts are not repeated)",
                    ev,
                    "/" + key,
                )
            return None
        part = parts[i]
        if want is not None and part.partial and not part.kind:
            part.kind = want
        if want is not None and part.kind != want:
            self._emit("S027", f"{kind} for a {part.kind} part, not {want}", ev, "/" + key)
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
            self._emit(
                "S003",
                f"response id {rid!r}, the stream's is {self._response_id!r}",
                ev,
                "/response/id",
            )
        return response

    def _lifecycle(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        if kind == "response.created":
            if self._created:
                self._emit("S002", "a second response.created", ev)
            self._created = True
        self._response_identity(ev, obj)

    def _terminal_event(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        if self._terminal is not None:
            self._emit("S041", f"{kind} after a terminal event (frame {self._terminal.frame})", ev)
            return
        self._terminal = ev
        if self._cut is not None:
            raw = obj.get("response")
            details = raw.get("incomplete_details") if type(raw) is dict else None
            reason = details.get("reason") if type(details) is dict else None
            self._flush_cut(cut=kind == "response.incomplete" and reason == "max_output_tokens")
        response = self._response_identity(ev, obj)
        if response is None:
            return
        status = response.get("status")
        want = TERMINAL[kind]
        if status != want:
            self._emit(
                "S044", f"{kind} with status {status!r}, not {want!r}", ev, "/response/status"
            )
        output = response.get("output")
        if kind == "response.completed":
            open_items = [
                i.index
                for i in self._items.values()
                if not i.done and not self._finished_in(i, output)
            ]
            if open_items:
                self._emit(
                    "S028",
                    f"response.completed with output_index {open_items} never done",
                    ev,
                )
        self._usage(ev, kind, response.get("usage"))
        if isinstance(output, list) and (kind != "response.failed" or output):
            self._output(ev, kind, output)

    @staticmethod
    def _finished_in(item: Item, output: Any) -> bool:
        """A hosted-tool item that only the terminal output finishes (``TERMINAL_ONLY``): its
        entry at its output_index has its id and a final status."""
        if item.type not in TERMINAL_ONLY or not isinstance(output, list):
            return False
        got = output[item.index] if 0 <= item.index < len(output) else None
        return (
            type(got) is dict
            and got.get("type") == item.type
            and got.get("id") == item.id
            and got.get("status", "completed") in ("completed", "failed", "incomplete")
        )

    def _usage(self, ev: Event, kind: str, usage: Any) -> None:
        if type(usage) is not dict:
            if kind != "response.failed" and usage is None:
                self._emit("S046", f"{kind} without usage", ev, "/response/usage")
            return
        inp = _int(usage.get("input_tokens"))
        out = _int(usage.get("output_tokens"))
        total = _int(usage.get("total_tokens"))
        problems = []
        if inp is not None and out is not None and total is not None and inp + out != total:
            problems.append(f"total_tokens {total} != input_tokens {inp} + output_tokens {out}")
        details = usage.get("output_tokens_details")
        reasoning = _int(details.get("reasoning_tokens")) if type(details) is dict else None
        if reasoning is not None and out is not None and reasoning > out:
            problems.append(f"reasoning_tokens {reasoning} > output_tokens {out}")
        details = usage.get("input_tokens_details")
        cached = _int(details.get("cached_tokens")) if type(details) is dict else None
        if cached is not None and inp is not None and cached > inp:
            problems.append(f"cached_tokens {cached} > input_tokens {inp}")
        if problems:
            self._emit("S045", "; ".join(problems), ev, "/response/usage")

    def _output(self, ev: Event, kind: str, output: list[Any]) -> None:
        """The terminal output against what the stream built, item by item."""
        items = [self._items[i] for i in sorted(self._items)]
        if self._resumed:  # output[i] is output_index i; what came before the stream is unknown
            if items and len(output) <= items[-1].index:
                self._emit(
                    "S043",
                    f"{kind} output has {len(output)} items, the stream reached "
                    f"output_index {items[-1].index}",
                    ev,
                    "/response/output",
                )
                return
        elif len(output) != len(items):
            self._emit(
                "S043",
                f"{kind} output has {len(output)} items, the stream built {len(items)}",
                ev,
                "/response/output",
            )
            return
        for n, item in enumerate(items):
            pos = item.index if self._resumed else n
            if not 0 <= pos < len(output):
                continue  # a negative output_index (its schema finding says so)
            got = output[pos]
            if type(got) is not dict:
                continue
            where = f"/response/output/{pos}"
            if (
                item.type == "reasoning"
                and got.get("type") == "reasoning"
                and item.id is not None
                and got.get("id") != item.id
            ):
                self._emit(
                    "S074",
                    f"output[{pos}] is reasoning {got.get('id')!r}, streamed as {item.id!r}",
                    ev,
                    where + "/id",
                )
            elif ((not item.partial or item.type is not None) and got.get("type") != item.type) or (
                item.id is not None and got.get("id") != item.id
            ):
                self._emit(
                    "S043",
                    f"output[{pos}] is {got.get('type')} {got.get('id')!r}, "
                    f"the stream built {item.type} {item.id!r}",
                    ev,
                    where,
                )
                continue
            differs = self._differs(item, signature(got), final=True)
            if differs:
                self._emit(
                    "S043",
                    f"output[{pos}] ({item.type} {item.id!r}): {differs} differs from what "
                    "the stream built",
                    ev,
                    where,
                )

    def _differs(self, item: Item, values: dict[str, str], *, final: bool) -> str:
        """The first streamed string of ``values`` that is not what ``item`` built ('' when
        all match); adopts what was only a seed."""
        done = item.final if final else None
        if isinstance(done, bytes):
            same = combined({label: digest(text) for label, text in values.items()})
            return "" if same == done else "its text, refusal, summary or arguments"
        if done is not None:
            if set(values) != set(done):
                return sorted(set(values) ^ set(done))[0]
            for label, text in values.items():
                if digest(text) not in done[label]:
                    return label
            return ""
        built = item.built()
        for label, (acc, lost) in built.items():
            if label not in values:
                if lost and acc.firm and acc.size:
                    return label
                continue
            if not acc.matches(values[label]):
                return label
        if item.type == "message" and not final:
            extra = [label for label in values if label not in built]
            if extra:
                return extra[0]
        return ""

    def _end_of_stream(self) -> None:
        self._flush_cut()
        if self._terminal is None and self._error is None and not self._done_sentinel:
            self._at_end(
                "S040",
                "the stream ends without response.completed, .incomplete or .failed, "
                "and no error event: truncated",
            )

    # -- items and parts -------------------------------------------------------------------

    def _item_added(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        idx = _int(obj.get("output_index"))
        item = obj.get("item")
        if idx is None or type(item) is not dict:
            return
        if idx in self._items:
            self._emit("S022", f"output_index {idx} added a second time", ev, "/output_index")
            return
        first_of_resumed = self._resumed and self._first_added is None and idx > self._max_index
        if idx != self._max_index + 1 and not first_of_resumed:
            self._emit(
                "S023",
                f"output_index {idx} added, expected {self._max_index + 1}",
                ev,
                "/output_index",
            )
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
            self._emit("S036", f"output_item.done again for output_index {item.index}", ev)
            return
        item.done = True
        values = signature(got)
        changed = [
            f"{f} {got.get(f)!r} (added as {getattr(item, f)!r})"
            for f in ("id", "type", "call_id", "name")
            if (f in ("id", "type") or item.type in CALLS)
            and getattr(item, f) is not None
            and f in got
            and got.get(f) != getattr(item, f)
        ]
        differs = self._differs(item, values, final=False)
        if differs and item.lost:
            differs = ""  # what was built is short because of S024, already reported
        if changed or differs:
            what = "; ".join(changed) if changed else f"{differs} differs from what was built"
            self._emit(
                "S035", f"output_item.done for output_index {item.index}: {what}", ev, "/item"
            )
        # a part begun before a resumed stream's first event may have been done before it too
        open_parts = [i for i, p in enumerate(item.parts) if not p.done and not p.partial]
        open_summary = [i for i, p in enumerate(item.summary) if not p.done and not p.partial]
        if open_parts or open_summary:
            self._emit(
                "S029",
                f"output_index {item.index} done with parts {open_parts or ''}"
                f"{' summary parts ' + str(open_summary) if open_summary else ''} never done",
                ev,
            )
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
            self._emit("S027", f"{kind} on a {item.type} item", ev, "/output_index")
            return
        i = _int(obj.get(key))
        if i is None:
            return
        parts = item.summary if summary else item.parts
        if len(parts) < i and self._unseen_parts(item, summary, i, added=True):
            while len(parts) < i:  # the item's earlier parts came before a resumed stream
                parts.append(Part("", "", partial=True))
        if i != len(parts):
            self._emit(
                "S025",
                f"{key} {i} added to output_index {item.index}, expected {len(parts)}",
                ev,
                "/" + key,
            )
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
            self._emit("S036", f"{kind} again for the same part", ev)
            return
        p.done = True
        if p.partial and not p.kind and isinstance(got.get("type"), str):
            p.kind = got["type"]  # a part begun before a resumed stream: known by its done
        text = got.get("refusal") if got.get("type") == "refusal" else got.get("text")
        if got.get("type") != p.kind and not summary:
            self._emit(
                "S034",
                f"{kind}: part type {got.get('type')!r}, added as {p.kind!r}",
                ev,
                "/part/type",
            )
        elif isinstance(text, str):
            if not p.acc.matches(text):
                self._emit(
                    "S034",
                    f"{kind}: the part's text ({len(text)} chars) is not what its deltas built "
                    f"({p.acc.size} chars)",
                    ev,
                    "/part",
                )
            p.acc.adopt(text)

    def _annotation(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        self._part(ev, obj, kind, "content", "output_text")

    # -- streamed strings ------------------------------------------------------------------

    def _text_delta(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        pkind, _, where = self._text_events[kind[:-6]]
        p = self._part(ev, obj, kind, where, pkind)
        delta = obj.get("delta")
        if p is not None and type(delta) is str:
            if p.done:
                self._emit("S026", f"{kind} for a part already done", ev)
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
            self._emit("S036", f"{kind} again for the same part", ev)
            return
        acc.done = True
        if not acc.matches(text):
            self._emit(
                "S030",
                f"{kind}: `{field}` ({len(text)} chars) is not what the deltas built "
                f"({acc.size} chars in {acc.deltas} deltas)",
                ev,
                "/" + field,
            )
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
            self._tmpl = make_template(ev.data, obj, ev.event, ("delta",), target, seq=True)

    def _body_done(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        prefix = kind[:-5]
        want, field = BODY_EVENTS[prefix]
        item = self._item_of_type(ev, obj, kind, want)
        text = obj.get(field)
        if item is None or item.body is None or type(text) is not str:
            return
        acc = item.body
        if acc.done:
            self._emit("S036", f"{kind} again for output_index {item.index}", ev)
            return
        acc.done = True
        if not acc.matches(text):
            self._emit(
                "S031",
                f"{kind}: `{field}` ({len(text)} chars) is not what the deltas built "
                f"({acc.size} chars in {acc.deltas} deltas)",
                ev,
                "/" + field,
            )
        acc.adopt(text)
        if prefix in JSON_BODIES:
            self._json_arguments(ev, text, field)

    def _json_arguments(self, ev: Event, text: str, field: str) -> None:
        if len(text) > self.settings.max_arguments:
            self._emit(
                "S033",
                f"arguments of {len(text)} chars, over max_arguments "
                f"({self.settings.max_arguments}): not parsed",
                ev,
                "/" + field,
            )
            return
        try:
            orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            self._flush_cut()  # an earlier call was not the last one: no token limit cut it
            self._cut = (ev, f"arguments are not JSON ({exc}): {text[:40]!r}", "/" + field)

    def _flush_cut(self, *, cut: bool = False) -> None:
        """Report held arguments: S072 when max_output_tokens cut them, else S032."""
        held, self._cut = self._cut, None
        if held is not None:
            ev, said, pointer = held
            if cut:
                self._emit("S072", f"{said}: cut by max_output_tokens", ev, pointer)
            else:
                self._emit("S032", said, ev, pointer)

    def _audio(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        """The response's audio or its transcript: nothing of it after its ``.done``."""
        prefix, _, phase = kind.rpartition(".")
        if prefix in self._audio_done:
            self._emit("S073", f"{kind} after {prefix}.done", ev, "/type")
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
