"""The Open Responses specification's grammar: the responses checker, and the spec on top.

A gateway that claims the Open Responses specification (openresponses.org, version
2026-04-24) serves the Responses stream the S rules check, with the spec's own contract where
it differs from OpenAI's. This checker keeps what the specification's rules need beyond the
responses checker's state (an item done as incomplete, the first terminal event's type),
reads the spec's own event names (``response.reasoning.*``), lets ``data: [DONE]`` and
``slug:`` extensions through, and calls the O rules' checks (``rules/o0*.py``, each beside
its docs) at the moments of ``hooks.py``.
"""

from __future__ import annotations

from typing import Any

from sseconform.rules.base import Settings
from sseconform.rules.open_responses import hooks as moment
from sseconform.rules.open_responses.hooks import HOOKS
from sseconform.rules.open_responses.spec import CORE_ITEMS
from sseconform.rules.responses.checker import ResponsesChecker
from sseconform.rules.responses.events import TEXT_EVENTS
from sseconform.sse.decoder import Event

__all__ = ["CHECKER", "OpenResponsesChecker"]


class OpenResponsesChecker(ResponsesChecker):
    """The responses grammar's rules, and the Open Responses specification's."""

    grammar = "open-responses"

    def __init__(self, settings: Settings | None = None) -> None:
        super().__init__(settings)
        self._spec = HOOKS.table(self._enabled)
        # the spec's raw reasoning events carry reasoning_text parts, as OpenAI's renamed ones do
        self._text_events = {
            **TEXT_EVENTS,
            "response.reasoning": TEXT_EVENTS["response.reasoning_text"],
        }
        for phase in ("delta", "done"):
            self._handlers["response.reasoning." + phase] = getattr(self, f"_text_{phase}")
        #: An item done as incomplete (its event, its output_index): it must be the last.
        self.incomplete: tuple[Event, int] | None = None
        #: The first terminal event's type ("" before it).
        self.terminal_kind = ""
        #: A `data: [DONE]` came after the terminal (or error) event, as the spec asks.
        self.done_after_end = False

    # -- every event: the specification's checks instead of OpenAI's names and schemas -------

    def _event_name(self, ev: Event, kind: str) -> None:
        moment.EVENT_NAME.fire(self._spec, self, ev, kind)

    def _validate(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        moment.EVENT.fire(self._spec, self, ev, obj, kind)

    def _unknown_event(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        # O002 or O008 said what there is to say about its type; its references still count
        self._refs(ev, obj, kind, need_item=False)

    def _done_sentinel_event(self, ev: Event) -> None:
        if self._terminal is not None or self._error is not None:
            # what the specification asks for: no S060; after an error without
            # response.failed, O011 says what is missing (no S061)
            self._done_sentinel = True
            self.done_after_end = True
            return
        super()._done_sentinel_event(ev)

    def _end_of_stream(self) -> None:
        super()._end_of_stream()
        moment.END.fire(self._spec, self)

    # -- items and parts -------------------------------------------------------------------

    def _foreign_item(self, ev: Event, obj: dict[str, Any]) -> None:
        """An item whose type is not the specification's: what the `item` checks judge."""
        item = obj.get("item")
        kind = item.get("type") if type(item) is dict else None
        if isinstance(item, dict) and isinstance(kind, str) and kind not in CORE_ITEMS:
            moment.ITEM.fire(self._spec, self, ev, item, kind)

    def _item_added(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        self._foreign_item(ev, obj)
        moment.ITEM_ADDED.fire(self._spec, self, ev, obj)
        super()._item_added(ev, obj, kind)

    def _item_done(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        self._foreign_item(ev, obj)
        super()._item_done(ev, obj, kind)
        item = obj.get("item")
        idx = obj.get("output_index")
        if type(item) is dict and item.get("status") == "incomplete" and type(idx) is int:
            self.incomplete = (ev, idx)

    def _part_done(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        if kind == "response.content_part.done":
            moment.PART_DONE.fire(self._spec, self, ev, obj, self.part_named(obj))
        super()._part_done(ev, obj, kind)

    def _text_done(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        if "summary" not in kind:
            moment.TEXT_DONE.fire(self._spec, self, ev, obj, kind, self.part_named(obj))
        super()._text_done(ev, obj, kind)

    def _terminal_event(self, ev: Event, obj: dict[str, Any], kind: str) -> None:
        first = self._terminal is None
        super()._terminal_event(ev, obj, kind)
        if first:
            self.terminal_kind = kind
            moment.TERMINAL.fire(self._spec, self, ev, kind)


CHECKER = OpenResponsesChecker
