"""The Open Responses specification's grammar: the responses checker, and the spec on top.

A gateway that claims the Open Responses specification (openresponses.org, version
2026-04-24) serves the Responses stream the S rules check, with the spec's own contract where
it differs from OpenAI's: every event validated against the spec's schemas (O001, O004), the
spec's event names only or a ``slug:`` prefix (O002, O006-O008), ``event:`` equal to the type
(O003), ``data: [DONE]`` after the terminal event (O005), content parts in their order (O009),
an incomplete item last (O010) and an error followed by ``response.failed`` (O011).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from sseconform.rules.base import Settings
from sseconform.rules.responses.checker import TEXT_EVENTS, ResponsesChecker
from sseconform.rules.schema import pointer_of, spec_validator
from sseconform.sse.decoder import Event

__all__ = ["CHECKER", "OpenResponsesChecker"]

SCHEMA = "open-responses/events"
#: The spec's item types; any other must carry an implementor's ``slug:`` prefix.
CORE_ITEMS = frozenset(
    {"message", "function_call", "function_call_output", "reasoning", "compaction"}
)
#: OpenAI's names for events the spec names otherwise.
RENAMED = {
    "response.reasoning_text.delta": "response.reasoning.delta",
    "response.reasoning_text.done": "response.reasoning.done",
}
#: An extension's type: ``slug:type`` (``acme:trace_event``).
EXTENSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*:\S+")
#: Content parts whose text ends with its own ``.done`` before ``content_part.done``.
TEXT_PARTS = frozenset({"output_text", "refusal", "reasoning_text"})


@cache
def core_events() -> frozenset[str]:
    """The 24 event types the specification defines (from its schemas)."""
    from sseconform.rules.schema import load_schema

    defs = load_schema(SCHEMA)["$defs"]
    return frozenset(k.removeprefix("event:") for k in defs if k.startswith("event:"))


def is_extension(kind: str) -> bool:
    return EXTENSION.fullmatch(kind) is not None


class OpenResponsesChecker(ResponsesChecker):
    """The responses grammar's rules, and the Open Responses specification's."""

    grammar = "open-responses"

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        self._core = core_events()
        self._spec_valid: dict[str, Callable[[Any], bool]] = {}
        # the spec's raw reasoning events carry reasoning_text parts, as OpenAI's renamed ones do
        self._text_events = {
            **TEXT_EVENTS,
            "response.reasoning": TEXT_EVENTS["response.reasoning_text"],
        }
        for phase in ("delta", "done"):
            self._handlers["response.reasoning." + phase] = getattr(self, f"_text_{phase}")
        self._incomplete: tuple[Event, int] | None = None  # an item done as incomplete
        self._terminal_kind = ""

    # -- every event -----------------------------------------------------------------------

    def _event_name(self, ev: Event, kind: str) -> None:
        if ev.event is None:
            if self._once_key("O003"):
                self._emit("O003", f"no `event:` line (data type {kind!r}; first here)", ev)
        elif ev.event != kind:
            self._emit("O003", f"`event: {ev.event}` but data type {kind!r}", ev)

    def _validate(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        if kind in self._core:
            ok = self._spec_valid.get(kind)
            if ok is None:
                ok = self._spec_valid[kind] = spec_validator(SCHEMA, "event:" + kind).is_valid
            if not ok(obj):
                self._spec_violations(ev, obj, kind)
        elif is_extension(kind):
            if type(obj.get("sequence_number")) is not int:
                self._emit(
                    "O008",
                    f"extension event {kind!r} without an integer sequence_number",
                    ev,
                    "/sequence_number",
                )
        elif self._once_key("O002:" + kind):
            spec = RENAMED.get(kind)
            hint = (
                f"OpenAI's name; the specification's is {spec}"
                if spec
                else "neither the specification's nor prefixed `slug:` as an extension"
            )
            self._emit("O002", f"event type {kind!r}: {hint}", ev, "/type")

    def _spec_violations(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        code = "O004" if kind == "error" else "O001"
        try:
            errors = list(spec_validator(SCHEMA, "event:" + kind).iter_errors(obj))
        except (ValueError, RecursionError) as exc:
            self._emit("J003", f"the event is nested too deeply to validate ({exc})", ev)
            return
        for err in errors:
            path = list(err.instance_path)
            keyword = err.schema_path[-1] if err.schema_path else ""
            prop = getattr(err.kind, "property", None) if keyword == "required" else None
            full = [*path, prop] if isinstance(prop, str) else path
            self._emit(code, f"{kind}: {err.message}", ev, pointer_of(full))

    def _unknown_event(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        # O002 or O008 said what there is to say about its type; its references still count
        self._refs(ev, obj, kind, need_item=False)

    def _done_sentinel_event(self, ev: Event) -> None:
        if self._terminal is not None or self._error is not None:
            # what the specification asks for: no S060; after an error without
            # response.failed, O011 says what is missing (no S061)
            self._done_sentinel = True
            return
        super()._done_sentinel_event(ev)

    def _end_of_stream(self) -> None:
        super()._end_of_stream()
        if (self._terminal is not None or self._error is not None) and not self._done_sentinel:
            last = self._terminal or self._error
            self._at_end(
                "O005",
                f"the stream ends after its terminal event (frame {last.frame if last else '?'}) "
                "without `data: [DONE]`",
            )
        if self._error is not None and (
            self._terminal is None or self._terminal_kind != "response.failed"
        ):
            then = f"then {self._terminal_kind}" if self._terminal is not None else "then nothing"
            self._at_end(
                "O011",
                f"the error event at frame {self._error.frame} is not followed by "
                f"response.failed ({then})",
            )

    # -- items and parts -------------------------------------------------------------------

    def _item_type(self, ev: Event, obj: dict[str, Any]) -> None:
        item = obj.get("item")
        if type(item) is not dict:
            return
        kind = item.get("type")
        if not isinstance(kind, str) or kind in CORE_ITEMS:
            return
        if not is_extension(kind):
            if self._once_key("O006:" + kind):
                self._emit(
                    "O006",
                    f"item type {kind!r} is neither the specification's nor prefixed `slug:`",
                    ev,
                    "/item/type",
                )
            return
        missing = [f for f in ("id", "status") if not isinstance(item.get(f), str)]
        if missing:
            self._emit(
                "O007",
                f"extension item {kind!r} without {' and '.join(missing)}",
                ev,
                "/item/" + missing[0],
            )

    def _item_added(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        self._item_type(ev, obj)
        if self._incomplete is not None:
            at, idx = self._incomplete
            self._emit(
                "O010",
                f"output_index {obj.get('output_index')} added after output_index {idx} was "
                f"done as incomplete (frame {at.frame}): an incomplete item must be the last",
                ev,
                "/output_index",
            )
            self._incomplete = None  # said once
        super()._item_added(ev, obj, kind)

    def _item_done(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        self._item_type(ev, obj)
        super()._item_done(ev, obj, kind)
        item = obj.get("item")
        idx = obj.get("output_index")
        if type(item) is dict and item.get("status") == "incomplete" and type(idx) is int:
            self._incomplete = (ev, idx)

    def _part_done(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        part = self._peek_part(obj) if kind == "response.content_part.done" else None
        if part is not None and part.kind in TEXT_PARTS and not part.acc.done and not part.done:
            self._emit(
                "O009",
                f"content_part.done for content_index {obj.get('content_index')} of output_index "
                f"{obj.get('output_index')} before its {part.kind} `.done` event",
                ev,
            )
        super()._part_done(ev, obj, kind)

    def _text_done(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        part = self._peek_part(obj) if "summary" not in kind else None
        if part is not None and part.done:
            self._emit(
                "O009",
                f"{kind} after its part's content_part.done (content_index "
                f"{obj.get('content_index')} of output_index {obj.get('output_index')})",
                ev,
            )
        super()._text_done(ev, obj, kind)

    def _peek_part(self, obj: dict[str, Any]) -> Any:
        """The content part an event names, if it exists; nothing reported (the S rules do)."""
        idx, ci = obj.get("output_index"), obj.get("content_index")
        item = self._items.get(idx) if type(idx) is int else None
        if item is None or type(ci) is not int or not 0 <= ci < len(item.parts):
            return None
        return item.parts[ci]

    def _terminal_event(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        first = self._terminal is None
        super()._terminal_event(ev, obj, kind)
        if first:
            self._terminal_kind = kind
        if first and self._incomplete is not None and kind != "response.incomplete":
            at, idx = self._incomplete
            self._emit(
                "O010",
                f"{kind} after output_index {idx} was done as incomplete (frame {at.frame}): "
                "the response must be incomplete too",
                ev,
                "/type",
            )


CHECKER = OpenResponsesChecker
