"""An Anthropic or Responses stream's own structure as it arrives: its blocks or its items.

The live view shows a native stream through the reference translation (text, reasoning and
calls, as a chat client would get them); this keeps what the translation folds away: each
Anthropic content block (index, type, open or closed, how much streamed into it) and each
Responses output item (index, type, id, added or done). Bounded: the first ``MAX_PARTS``
are kept, the rest only counted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from sseconform import providers
from sseconform.safetext import printable
from sseconform.sse import Event

__all__ = ["MAX_PARTS", "NativePart", "NativeParts"]

MAX_PARTS = 64
_DELTA_KEYS = ("text", "partial_json", "thinking", "signature", "delta", "arguments")


@dataclass(slots=True)
class NativePart:
    """One block (Anthropic) or output item (Responses)."""

    index: int
    kind: str  # text, tool_use, thinking / message, function_call, reasoning, ...
    label: str  # the tool's name, or the item's id
    frame: int  # where it started
    state: str = "open"  # open -> closed (a block) or done (an item)
    chars: int = 0  # characters streamed into it
    deltas: int = 0


class NativeParts:
    """Blocks or items of one native stream; ``feed`` each decoded event."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        self.word = "blocks" if dialect == providers.ANTHROPIC else "items"
        self.parts: dict[int, NativePart] = {}
        self.more = 0  # parts past MAX_PARTS, counted only
        self.status = ""  # the message's or the response's own state (stop reason, status)

    @staticmethod
    def tracks(dialect: str | None) -> bool:
        return dialect in (providers.ANTHROPIC, providers.RESPONSES)

    def feed(self, ev: Event) -> None:
        try:
            obj = orjson.loads(ev.data)
        except orjson.JSONDecodeError:
            return
        if not isinstance(obj, dict):
            return
        kind = obj.get("type")
        if not isinstance(kind, str):
            return
        if self.dialect == providers.ANTHROPIC:
            self._anthropic(kind, obj, ev.frame)
        else:
            self._responses(kind, obj, ev.frame)

    def _open(self, index: Any, kind: Any, label: Any, frame: int) -> None:
        if type(index) is not int:
            return
        if index not in self.parts and len(self.parts) >= MAX_PARTS:
            self.more += 1
            return
        self.parts[index] = NativePart(
            index, printable(str(kind)), printable(str(label or "")), frame
        )

    def _part(self, index: Any) -> NativePart | None:
        return self.parts.get(index) if type(index) is int else None

    def _grow(self, index: Any, delta: Any) -> None:
        part = self._part(index)
        if part is None:
            return
        part.deltas += 1
        if isinstance(delta, str):
            part.chars += len(delta)
        elif isinstance(delta, dict):
            part.chars += sum(len(v) for k in _DELTA_KEYS if isinstance(v := delta.get(k), str))

    def _anthropic(self, kind: str, obj: dict[str, Any], frame: int) -> None:
        if kind == "content_block_start":
            block = obj.get("content_block")
            block = block if isinstance(block, dict) else {}
            self._open(obj.get("index"), block.get("type"), block.get("name"), frame)
        elif kind == "content_block_delta":
            self._grow(obj.get("index"), obj.get("delta"))
        elif kind == "content_block_stop":
            part = self._part(obj.get("index"))
            if part is not None:
                part.state = "closed"
        elif kind == "message_delta":
            delta = obj.get("delta")
            if isinstance(delta, dict) and delta.get("stop_reason"):
                self.status = f"stop_reason {printable(str(delta['stop_reason']))}"
        elif kind == "message_stop":
            self.status = (self.status + ", " if self.status else "") + "message_stop"
        elif kind == "error":
            self.status = "error event"

    def _responses(self, kind: str, obj: dict[str, Any], frame: int) -> None:
        if kind == "response.output_item.added":
            item = obj.get("item")
            item = item if isinstance(item, dict) else {}
            label = item.get("name") or item.get("id")
            self._open(obj.get("output_index"), item.get("type"), label, frame)
        elif kind == "response.output_item.done":
            part = self._part(obj.get("output_index"))
            if part is not None:
                item = obj.get("item")
                status = item.get("status") if isinstance(item, dict) else None
                part.state = "incomplete" if status == "incomplete" else "done"
        elif kind.endswith(".delta"):
            self._grow(obj.get("output_index"), obj.get("delta"))
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self.status = kind.removeprefix("response.")
            response = obj.get("response")
            details = response.get("incomplete_details") if isinstance(response, dict) else None
            reason = details.get("reason") if isinstance(details, dict) else None
            if isinstance(reason, str):
                self.status += f" ({printable(reason)})"
        elif kind == "error":
            self.status = "error event"
