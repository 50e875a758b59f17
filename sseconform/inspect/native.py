"""An Anthropic or Responses stream's own structure as it arrives: its blocks or its items.

The live view shows a native stream through the reference translation (text, reasoning and
calls, as a chat client would get them); this keeps what the translation folds away: each
Anthropic content block (index, type, open or closed, how much streamed into it) and each
Responses output item (index, type, id, added or done), as the stream's wire reads them
(``Wire.native``). Bounded: the first ``MAX_PARTS`` are kept, the rest only counted.
"""

from __future__ import annotations

import orjson

from sseconform.sse import Event
from sseconform.wires import by_dialect, known_dialect
from sseconform.wires.base import MAX_PARTS, NativePart, PartsView

__all__ = ["MAX_PARTS", "NativePart", "NativeParts"]


class NativeParts(PartsView):
    """Blocks or items of one native stream; ``feed`` each decoded event."""

    def __init__(self, dialect: str) -> None:
        self.wire = by_dialect(dialect)
        super().__init__(self.wire.native_word)
        self.dialect = dialect

    @staticmethod
    def tracks(dialect: str | None) -> bool:
        """Has the dialect's stream parts of its own to show (blocks, items)?"""
        return known_dialect(dialect) and bool(by_dialect(dialect).native_word)

    def feed(self, ev: Event) -> None:
        try:
            obj = orjson.loads(ev.data)
        except orjson.JSONDecodeError:
            return
        if not isinstance(obj, dict):
            return
        kind = obj.get("type")
        if isinstance(kind, str):
            self.wire.native(self, kind, obj, ev.frame)
