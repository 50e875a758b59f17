"""The opaque state in a stream: what a client must send back, unchanged, on its next turn.

The provider signs or encrypts it and verifies it when it comes back, refusing the whole
request when it was lost or changed (Anthropic: HTTP 400 ``Invalid 'signature' in
'thinking' block``; Responses: ``invalid_encrypted_content``; Gemini: a function call
``missing a thought_signature``). A gateway loses it by dropping a ``signature_delta``,
re-serialising a signature, stripping ``encrypted_content`` in translation, or having no
place to put it in its client's dialect.

:class:`StateFolder` collects it from one stream, event by event, in the stream's dialect:

=================  =====================================================================
anthropic          a ``thinking`` block's ``signature`` (its start and ``signature_delta``
                   events), a ``redacted_thinking`` block's ``data``
responses          a ``reasoning`` item's ``encrypted_content`` (``output_item.done``, or
                   ``.added`` when the stream ends before it)
gemini             a part's ``thoughtSignature`` (on text, a thought or a function call)
openai (chat)      no standard field: what real clients read back - OpenRouter's
                   ``reasoning_details`` (``signature``, ``reasoning.encrypted`` ``data``),
                   LiteLLM's ``thinking_blocks`` (``signature``, ``data``) and a tool
                   call's (or its function's) ``provider_specific_fields.thought_signature``
any                a signature inside a tool call's id, after ``__thought__``, in a
                   block's ``provider_specific_fields`` (LiteLLM's, on every endpoint), or
                   a ``thought_signature`` field on a call (claude-code-router's)
=================  =====================================================================

Bounded: at most :data:`MAX_TOKENS` pieces and :data:`MAX_BYTES` of them are kept (a hostile
stream cannot grow the grader's memory); ``truncated`` says more came.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import orjson

__all__ = ["KINDS", "MAX_BYTES", "MAX_TOKENS", "State", "StateFolder", "Token", "sent_back"]

#: The dialects, by the names ``sseconform.providers`` gives them (this layer sits below it).
ANTHROPIC, RESPONSES, GEMINI, OPENAI = "anthropic", "responses", "gemini", "openai"

#: Each kind of state (a finding's field is ``state.<kind>``) and the wire field it is.
KINDS = {
    "signature": "signature",  # a thinking block's
    "redacted-thinking": "data",  # a redacted thinking block's
    "encrypted-content": "encrypted_content",  # a reasoning item's
    "thought-signature": "thoughtSignature",  # a Gemini part's
}
MAX_TOKENS = 256
MAX_BYTES = 4 * 1024 * 1024

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

#: The dialects whose carriers are parsed where they stand (no loose scan for them).
_PARSED = (GEMINI, OPENAI)

#: A cheap test before an event is parsed for state: the words its carrier holds.
_MARKS = {
    ANTHROPIC: ("signature", "redacted_thinking"),
    RESPONSES: ("encrypted_content",),
    GEMINI: ("thoughtSignature", "thought_signature"),
    OPENAI: ("signature", "encrypted", "thinking_blocks"),
}


@dataclass(frozen=True, slots=True)
class Token:
    """One piece of state: its kind (:data:`KINDS`), what it belongs to in words
    (``thinking block 0``), its value, and the frame (1-based) and byte offset that
    completed it."""

    kind: str
    owner: str
    value: str
    frame: int
    offset: int


@dataclass
class State:
    tokens: list[Token] = field(default_factory=list)
    truncated: bool = False
    size: int = 0

    def add(self, token: Token) -> None:
        if len(self.tokens) >= MAX_TOKENS or self.size + len(token.value) > MAX_BYTES:
            self.truncated = True
            return
        self.tokens.append(token)
        self.size += len(token.value)

    def values(self) -> set[str]:
        return {t.value for t in self.tokens}


class StateFolder:
    """``feed(data, frame, offset)`` each event's data, in order; ``state`` holds what was
    found. ``dialect``: the stream's (``providers`` names)."""

    def __init__(self, dialect: str) -> None:
        self.dialect = dialect
        self.state = State()
        #: an event that holds none of these holds no state (unless it closes a block)
        self._words = tuple(dict.fromkeys((*_MARKS.get(dialect, ()), EMBEDDED, "signature")))
        #: anthropic: open thinking blocks (stream index -> [ordinal, signature so far])
        self._open: dict[int, list[Any]] = {}
        self._blocks = 0  # thinking blocks seen, in order
        self._redacted = 0
        #: responses: reasoning items announced (output index -> [ordinal, content, loc])
        self._items: dict[int, list[Any]] = {}
        self._reasoning = 0
        self._chat: dict[tuple[str, int, str], list[Any]] = {}  # chat carriers, by index
        self._loose: dict[str, int] = {}  # chat carrier entries without an index, counted

    def feed(self, data: str, frame: int, offset: int) -> None:
        closes = bool(self._open) and "content_block_stop" in data  # an open thinking block
        if not closes and not any(map(data.__contains__, self._words)):
            return  # nearly every event: no parse
        if EMBEDDED in data:  # in any dialect: a signature carried inside a tool call's id
            for m in _EMBEDDED.finditer(data):
                sig = m.group(1).replace("\\/", "/")
                self._add("thought-signature", "a tool call's id", sig, frame, offset)
        if self.dialect not in _PARSED and "signature" in data:
            for rx, owner in _LOOSE:
                for m in rx.finditer(data):
                    sig = m.group(1).replace("\\/", "/")
                    self._add("thought-signature", owner, sig, frame, offset)
        getattr(self, "_" + self.dialect, _ignore)(data, frame, offset)

    def finish(self) -> State:
        """The state, with what an unfinished stream had begun (a signature whose block
        never stopped, an item never done)."""
        for ordinal, sig, frame, offset in list(self._open.values()):
            if sig:
                self._add("signature", f"thinking block {ordinal}", sig, frame, offset)
        self._open.clear()
        for ordinal, content, frame, offset in list(self._items.values()):
            if content:
                self._add("encrypted-content", f"reasoning item {ordinal}", content, frame, offset)
        self._items.clear()
        for (kind, ordinal, owner), (value, frame, offset) in list(self._chat.items()):
            self._add(kind, owner.format(ordinal), value, frame, offset)
        self._chat.clear()
        return self.state

    def _add(self, kind: str, owner: str, value: str, frame: int, offset: int) -> None:
        self.state.add(Token(kind, owner, value, frame, offset))

    # -- anthropic ---------------------------------------------------------------------------

    def _anthropic(self, data: str, frame: int, offset: int) -> None:
        obj = _load(data)
        kind = obj.get("type")
        index = obj.get("index")
        if not isinstance(index, int):
            return
        if kind == "content_block_start":
            block = obj.get("content_block")
            if not isinstance(block, dict):
                return
            if block.get("type") == "thinking":
                sig = block.get("signature")
                self._open[index] = [
                    self._blocks,
                    sig if isinstance(sig, str) else "",
                    frame,
                    offset,
                ]
                self._blocks += 1
            elif block.get("type") == "redacted_thinking" and isinstance(block.get("data"), str):
                owner = f"redacted thinking block {self._redacted}"
                self._redacted += 1
                self._add("redacted-thinking", owner, block["data"], frame, offset)
        elif kind == "content_block_delta":
            delta = obj.get("delta")
            if isinstance(delta, dict) and delta.get("type") == "signature_delta":
                sig = delta.get("signature")
                if index not in self._open:  # a block started without its signature field
                    self._open[index] = [self._blocks, "", frame, offset]
                    self._blocks += 1
                if isinstance(sig, str):
                    self._open[index][1] += sig
                    self._open[index][2:] = [frame, offset]
        elif kind == "content_block_stop" and index in self._open:
            ordinal, sig, at_frame, at_offset = self._open.pop(index)
            if sig:
                self._add("signature", f"thinking block {ordinal}", sig, at_frame, at_offset)

    # -- responses ---------------------------------------------------------------------------

    def _responses(self, data: str, frame: int, offset: int) -> None:
        obj = _load(data)
        item = obj.get("item")
        at = obj.get("output_index")
        if not isinstance(item, dict) or item.get("type") != "reasoning" or not isinstance(at, int):
            return
        content = item.get("encrypted_content")
        content = content if isinstance(content, str) else ""
        if obj.get("type") == "response.output_item.added":
            self._items[at] = [self._reasoning, content, frame, offset]
            self._reasoning += 1
        elif obj.get("type") == "response.output_item.done":
            ordinal = self._items.pop(at, [self._reasoning])[0]
            if at not in self._items and ordinal == self._reasoning:
                self._reasoning += 1  # done without added
            if content:
                self._add("encrypted-content", f"reasoning item {ordinal}", content, frame, offset)

    # -- gemini ------------------------------------------------------------------------------

    def _gemini(self, data: str, frame: int, offset: int) -> None:
        obj = _load(data)
        candidates = obj.get("candidates")
        first = candidates[0] if isinstance(candidates, list) and candidates else None
        content = first.get("content") if isinstance(first, dict) else None
        parts = content.get("parts") if isinstance(content, dict) else None
        for n, part in enumerate(parts if isinstance(parts, list) else ()):
            if not isinstance(part, dict):
                continue
            sig = part.get("thoughtSignature", part.get("thought_signature"))
            if not isinstance(sig, str) or not sig:
                continue
            call = part.get("functionCall")
            if isinstance(call, dict):
                what = f"the {call.get('name')!s} function call part"
            else:
                what = "a thought part" if part.get("thought") else "a text part"
            self._add("thought-signature", f"{what} (frame {frame}, part {n})", sig, frame, offset)

    # -- chat (a gateway's carriers) ---------------------------------------------------------

    def _openai(self, data: str, frame: int, offset: int) -> None:
        obj = _load(data)
        choices = obj.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if not isinstance(delta, dict):
                continue
            self._carrier(delta.get("reasoning_details"), "reasoning_details", frame, offset)
            self._carrier(delta.get("thinking_blocks"), "thinking_blocks", frame, offset)
            calls = delta.get("tool_calls")
            for call in calls if isinstance(calls, list) else ():
                extra = call.get("provider_specific_fields") if isinstance(call, dict) else None
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(extra, dict) and isinstance(function, dict):
                    extra = function.get("provider_specific_fields")  # LiteLLM reads both
                sig = extra.get("thought_signature") if isinstance(extra, dict) else None
                if isinstance(sig, str) and sig:
                    n = call.get("index", 0)
                    owner = f"tool call {n if isinstance(n, int) else 0}"
                    self._add("thought-signature", owner, sig, frame, offset)

    def _carrier(self, items: object, name: str, frame: int, offset: int) -> None:
        """``reasoning_details`` / ``thinking_blocks`` entries. One with an ``index``
        (OpenRouter's) may bring its value in pieces over several chunks, joined by that
        index; one without (LiteLLM's) is whole, a piece of state of its own."""
        for entry in items if isinstance(items, list) else ():
            if not isinstance(entry, dict):
                continue
            for key, kind in (("signature", "signature"), ("data", "redacted-thinking")):
                value = entry.get(key)
                if not isinstance(value, str) or not value:
                    continue
                if key == "data" and entry.get("type") == "reasoning.encrypted":
                    kind = "encrypted-content"
                index = entry.get("index")
                if not isinstance(index, int):
                    n = self._loose.get(name, 0)
                    self._loose[name] = n + 1
                    self._add(kind, f"{name}[{n}]", value, frame, offset)
                    continue
                got = self._chat.setdefault((kind, index, f"{name}[{{}}]"), ["", frame, offset])
                got[0] += value
                got[1:] = [frame, offset]


def _load(data: str) -> dict[str, Any]:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return {}
    return obj if isinstance(obj, dict) else {}


def _ignore(data: str, frame: int, offset: int) -> None:
    """A dialect that carries no state sseconform knows of."""


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
