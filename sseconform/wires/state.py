"""The opaque state in a stream: what a client must send back, unchanged, on its next turn.

The provider signs or encrypts it and verifies it when it comes back, refusing the whole
request when it was lost or changed (Anthropic: HTTP 400 ``Invalid 'signature' in
'thinking' block``; Responses: ``invalid_encrypted_content``; Gemini: a function call
``missing a thought_signature``). A gateway loses it by dropping a ``signature_delta``,
re-serialising a signature, stripping ``encrypted_content`` in translation, or having no
place to put it in its client's dialect.

:class:`StateFolder` collects it from one stream, event by event: each wire's own carriers
are read by its module (``wires/<wire>.py``, its ``state_reader``); what gateways put in any
wire is read here: a signature inside a tool call's id, after ``__thought__``, in a block's
``provider_specific_fields`` (LiteLLM's, on every endpoint), or a ``thought_signature``
field on a call (claude-code-router's).

Bounded (``wires.base.State``): a hostile stream cannot grow the grader's memory.
"""

from __future__ import annotations

import re

from sseconform.wires import by_dialect, known_dialect
from sseconform.wires.base import MAX_BYTES, MAX_TOKENS, State, StateReader, Token, load_object

__all__ = ["EMBEDDED", "KINDS", "MAX_BYTES", "MAX_TOKENS", "State", "StateFolder", "Token"]
__all__ += ["sent_back"]

#: Each kind of state (a finding's field is ``state.<kind>``) and the wire field it is.
KINDS = {
    "signature": "signature",  # a thinking block's
    "redacted-thinking": "data",  # a redacted thinking block's
    "encrypted-content": "encrypted_content",  # a reasoning item's
    "thought-signature": "thoughtSignature",  # a Gemini part's
}

#: LiteLLM carries a Gemini thought signature inside the tool call's id, after this
#: separator, and reads it back from there (so a client that returns the id returns it).
EMBEDDED = "__thought__"
_EMBEDDED = re.compile(EMBEDDED + r"((?:[A-Za-z0-9+=_-]|\\?/)+)")

#: Where gateways put a Gemini call's signature in another dialect's stream, found in any
#: event: a ``tool_use`` block's (or an item's) ``provider_specific_fields`` (LiteLLM's
#: Messages endpoint), a ``thought_signature`` field on the call itself (claude-code-router's
#: Responses items).
_VALUE = r'\s*:\s*"((?:[^"\\]|\\/)+)"'
_LOOSE = [
    (re.compile(r'"provider_specific_fields"\s*:\s*\{[^{}]*?"signature"' + _VALUE),
     "a block's provider_specific_fields"),
    (re.compile(r'"(?:thought_signature|thoughtSignature)"' + _VALUE),
     "a call's thought_signature"),
]  # fmt: skip


class StateFolder:
    """``feed(data, frame, offset)`` each event's data, in order; ``state`` holds what was
    found. ``dialect``: the stream's (``providers`` names)."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        self.state = State()
        wire = by_dialect(dialect)
        known = known_dialect(dialect)
        #: a dialect no wire knows carries no state of its own (only the loose carriers)
        self._reader: StateReader = wire.state_reader() if known else StateReader()
        self._loose = wire.loose_state or not known
        marks = wire.state_marks if known else ()
        #: an event that holds none of these holds no state (unless its reader wants it)
        self._words = tuple(dict.fromkeys((*marks, EMBEDDED, "signature")))
        opens = type(self._reader).wants is not StateReader.wants
        self._wants = self._reader.wants if opens else None

    def feed(self, data: str, frame: int, offset: int) -> None:
        wanted = self._wants is not None and self._wants(data)
        if not wanted and not any(map(data.__contains__, self._words)):
            return  # nearly every event: no parse
        if EMBEDDED in data:  # in any dialect: a signature carried inside a tool call's id
            for m in _EMBEDDED.finditer(data):
                sig = m.group(1).replace("\\/", "/")
                self._add("thought-signature", "a tool call's id", sig, frame, offset)
        if self._loose and "signature" in data:
            for rx, owner in _LOOSE:
                for m in rx.finditer(data):
                    sig = m.group(1).replace("\\/", "/")
                    self._add("thought-signature", owner, sig, frame, offset)
        if type(self._reader) is not StateReader:
            self._reader.feed(load_object(data), frame, offset, self._add)

    def finish(self) -> State:
        """The state, with what an unfinished stream had begun (a signature whose block
        never stopped, an item never done)."""
        self._reader.finish(self._add)
        return self.state

    def _add(self, kind: str, owner: str, value: str, frame: int, offset: int) -> None:
        self.state.add(Token(kind, owner, value, frame, offset))


#: The keys a request's history holds state under, in any dialect (its carriers included).
_RETURNED_KEYS = frozenset(
    {"signature", "encrypted_content", "thoughtSignature", "thought_signature"}
)
#: Nesting past this is not walked (a request is the client's, not a hostile stream, but
#: a gateway forwards what it likes).
_MAX_DEPTH = 64


def sent_back(obj: object) -> set[str]:
    """The opaque state a request's history sends back, in any dialect: a thinking block's
    ``signature``, a redacted block's or an encrypted ``reasoning_details`` entry's
    ``data``, an item's ``encrypted_content``, a part's or call's thought signature, a
    signature inside a call id (after ``__thought__``). Bounded like :class:`State`."""
    out: set[str] = set()
    size = 0
    stack: list[tuple[object, int]] = [(obj, 0)]
    while stack and len(out) < MAX_TOKENS and size < MAX_BYTES:
        node, depth = stack.pop()
        if depth > _MAX_DEPTH:
            continue
        if isinstance(node, list):
            stack.extend((v, depth + 1) for v in node)
            continue
        if not isinstance(node, dict):
            continue
        kind = node.get("type")
        for key, value in node.items():
            if isinstance(value, str) and value:
                carried = key in _RETURNED_KEYS or (
                    key == "data" and kind in ("redacted_thinking", "reasoning.encrypted")
                )
                if carried:
                    out.add(value)
                    size += len(value)
                elif EMBEDDED in value and key in ("id", "tool_call_id", "tool_use_id", "call_id"):
                    m = _EMBEDDED.search(value)  # as the stream's folder reads it
                    if m:
                        out.add(m.group(1))
                        size += len(m.group(1))
            elif isinstance(value, dict | list):
                stack.append((value, depth + 1))
    return out
