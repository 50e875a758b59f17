"""What a client ends up with: a chat chunk stream folded into per-choice text, reasoning and calls.

The checker says whether a stream is well formed; this says what it *means*, the way a careful
client reads it, so a live view can show it and tests can compare it with real SDKs.

Client semantics followed on purpose:

- tool calls are keyed by their ``index`` (openai-python, the AI SDK and langchain all do so,
  not by ``id``); a delta without an index goes to the call with the same id, else to a new one;
- the first non-empty ``id``, ``type`` and ``name`` of a call win; a repeated value is not
  appended (the ``.stream()`` accumulator's ``call_1call_1...`` is a bug, not a meaning);
- ``arguments`` fragments are concatenated;
- an error frame ends the stream for a client (openai-python raises there), so chunks after it
  are not folded in; nothing after ``[DONE]`` is read either, as clients stop at it.

Strings are kept as lists of parts and joined only when read, so folding is linear in the
stream's size however many fragments it has. A live view passes ``keep`` (only the last
characters of text are kept: memory stays flat on an endless stream) and ``parse_arguments``
(each call's arguments also go through a :class:`PartialJSON` as they arrive).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from sseconform.model.partial import PartialJSON
from sseconform.sse import SSEDecoder

__all__ = ["ChoiceState", "Parts", "Reassembler", "ToolCallState", "reassemble"]

DONE = "[DONE]"


class Parts:
    """A string that grows by fragments: joined once when read, optionally only its tail kept.

    Reading after every fragment still copies the whole string each time; a live view that
    must stay linear reads the tail (``keep``), not the total.
    """

    __slots__ = ("_held", "_keep", "_parts", "total")

    def __init__(self, keep: int | None = None) -> None:
        self._parts: list[str] = []
        self._keep = keep
        self._held = 0  # characters in _parts
        self.total = 0  # characters ever appended

    def append(self, s: str) -> None:
        self._parts.append(s)
        self._held += len(s)
        self.total += len(s)
        keep = self._keep
        if keep is not None and self._held > 2 * keep:  # amortised: cut when twice too big
            tail = "".join(self._parts)[-keep:]
            self._parts[:] = [tail]
            self._held = len(tail)

    @property
    def value(self) -> str:
        """The whole string (or, with ``keep``, at least its last ``keep`` characters)."""
        parts = self._parts
        if len(parts) > 1:
            parts[:] = ["".join(parts)]
        return parts[0] if parts else ""

    @property
    def cut(self) -> bool:
        """True when the start was dropped to respect ``keep``."""
        return self.total > self._held

    def __bool__(self) -> bool:
        return self.total > 0


def _nonempty(value: Any) -> str | None:
    """A non-empty string, or None: empty strings and nulls carry nothing to keep."""
    return value if type(value) is str and value else None


@dataclass(slots=True, eq=False)
class ToolCallState:
    """One call of one choice, as its deltas added up."""

    index: int
    id: str | None = None
    type: str | None = None
    name: str | None = None
    _arguments: Parts = field(default_factory=Parts, repr=False)
    #: the arguments as partial JSON, when the reassembler was asked to parse them
    json: PartialJSON | None = field(default=None, repr=False)
    fragments: int = 0

    @property
    def arguments(self) -> str:
        """All ``function.arguments`` fragments, in order."""
        return self._arguments.value

    @property
    def size(self) -> int:
        """Characters of arguments received so far (cheap: nothing is joined)."""
        return self._arguments.total

    def to_dict(self) -> dict[str, Any]:
        """A plain value, for comparisons and JSON output."""
        return {
            "index": self.index,
            "id": self.id,
            "type": self.type,
            "name": self.name,
            "arguments": self.arguments,
        }


@dataclass(slots=True, eq=False)
class ChoiceState:
    """One choice (``n`` > 1 streams several), as its deltas added up."""

    index: int
    role: str | None = None
    finish_reason: str | None = None
    tool_calls: dict[int, ToolCallState] = field(default_factory=dict)
    _text: Parts = field(default_factory=Parts, repr=False)
    _reasoning: Parts = field(default_factory=Parts, repr=False)
    _refusal: Parts = field(default_factory=Parts, repr=False)

    @property
    def text(self) -> str:
        """All ``content`` deltas, in order."""
        return self._text.value

    @property
    def reasoning(self) -> str:
        """All ``reasoning_content`` (or, where a provider uses it, ``reasoning``) deltas."""
        return self._reasoning.value

    @property
    def refusal(self) -> str:
        """All ``refusal`` deltas, in order."""
        return self._refusal.value

    @property
    def parts(self) -> tuple[Parts, Parts, Parts]:
        """Text, reasoning and refusal as :class:`Parts` (totals, and whether the start was cut)."""
        return self._text, self._reasoning, self._refusal

    def to_dict(self) -> dict[str, Any]:
        """A plain value, for comparisons and JSON output."""
        return {
            "index": self.index,
            "role": self.role,
            "text": self.text,
            "reasoning": self.reasoning,
            "refusal": self.refusal,
            "finish_reason": self.finish_reason,
            "tool_calls": [tc.to_dict() for tc in self.tool_calls.values()],
        }


class Reassembler:
    """Fold a chunk stream: ``feed_event(data)`` per SSE event, or ``feed(bytes)``/``finish()``.

    Unparsable data is ignored rather than raised: the checker reports it; the model shows
    what could still be made of the stream.
    """

    __slots__ = (
        "_decoder",
        "_keep",
        "_parse",
        "choices",
        "done",
        "error",
        "id",
        "model",
        "usage",
    )

    def __init__(self, *, keep: int | None = None, parse_arguments: bool = False) -> None:
        self._keep = keep
        self._parse = parse_arguments
        self.choices: dict[int, ChoiceState] = {}
        self.id: str | None = None
        self.model: str | None = None
        self.usage: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.done = False
        self._decoder: SSEDecoder | None = None

    # -- bytes -----------------------------------------------------------------------------

    def feed(self, body: bytes) -> None:
        """Decode the next bytes of the body and fold the events they complete."""
        if self._decoder is None:
            self._decoder = SSEDecoder()
        for ev in self._decoder.feed(body):
            self.feed_event(ev.data)

    def finish(self) -> None:
        """End of body: an unterminated last event is dropped, as clients drop it."""
        if self._decoder is not None:
            for ev in self._decoder.finish():
                self.feed_event(ev.data)
        for c in self.choices.values():
            self._close_calls(c)

    # -- events ----------------------------------------------------------------------------

    def feed_event(self, data: str) -> None:
        """Fold one event's data: a JSON chunk, an error frame or ``[DONE]``."""
        if self.done:
            return
        if data.strip() == DONE:
            self.done = True
            return
        try:
            obj = orjson.loads(data)
        except orjson.JSONDecodeError:
            return
        if type(obj) is dict:
            self.feed_obj(obj)

    def feed_obj(self, obj: dict[str, Any]) -> None:
        """Fold one chunk or error frame already parsed (a live view parses once, for both)."""
        if self.done:
            return
        err = obj.get("error")
        if err:  # the test openai-python uses: any truthy `error` ends the stream
            if self.error is None:
                self.error = err if type(err) is dict else {"message": str(err)}
            return
        if self.error is not None:
            return
        self._chunk(obj)

    def _chunk(self, obj: dict[str, Any]) -> None:
        if self.id is None:
            self.id = _nonempty(obj.get("id"))
        if self.model is None:
            self.model = _nonempty(obj.get("model"))
        usage = obj.get("usage")
        if type(usage) is dict:
            self.usage = usage
        choices = obj.get("choices")
        if type(choices) is not list:
            return
        for ch in choices:
            if type(ch) is dict:
                self._choice(ch)

    def _choice(self, ch: dict[str, Any]) -> None:
        idx = ch.get("index")
        if type(idx) is not int:
            return
        c = self.choices.get(idx)
        if c is None:
            c = self.choices[idx] = self._new_choice(idx)
        delta = ch.get("delta")
        if type(delta) is dict and delta:
            self._delta(c, delta)
        fr = ch.get("finish_reason")
        if type(fr) is str and fr:
            c.finish_reason = fr  # a repeated finish_reason replaces, as in the SDK snapshot
            self._close_calls(c)

    def _new_choice(self, idx: int) -> ChoiceState:
        keep = self._keep
        if keep is None:
            return ChoiceState(idx)
        return ChoiceState(idx, _text=Parts(keep), _reasoning=Parts(keep), _refusal=Parts(keep))

    def _close_calls(self, c: ChoiceState) -> None:
        """The choice ended: arguments still open are truncated from here on."""
        for call in c.tool_calls.values():
            if call.json is not None and not call.json.finished:
                call.json.finish()

    def _delta(self, c: ChoiceState, delta: dict[str, Any]) -> None:
        if c.role is None:
            c.role = _nonempty(delta.get("role"))
        if s := _nonempty(delta.get("content")):
            c._text.append(s)
        # Some providers send both keys with the same text; `reasoning` only counts alone.
        if s := _nonempty(delta.get("reasoning_content")) or _nonempty(delta.get("reasoning")):
            c._reasoning.append(s)
        if s := _nonempty(delta.get("refusal")):
            c._refusal.append(s)
        calls = delta.get("tool_calls")
        if type(calls) is list:
            for tc in calls:
                if type(tc) is dict:
                    self._tool_call(c, tc)

    def _tool_call(self, c: ChoiceState, tc: dict[str, Any]) -> None:
        tid = _nonempty(tc.get("id"))
        idx = tc.get("index")
        if "index" not in tc:  # Mistral-style whole calls: route by id, else a new call
            idx = next(
                (k for k, v in c.tool_calls.items() if tid is not None and v.id == tid),
                max(c.tool_calls, default=-1) + 1,
            )
        elif type(idx) is not int or idx < 0:
            return
        call = c.tool_calls.get(idx)
        if call is None:
            call = c.tool_calls[idx] = ToolCallState(idx)
            if self._parse:
                call.json = PartialJSON()
                call._arguments = Parts(self._keep)
        if call.id is None:
            call.id = tid
        if call.type is None:
            call.type = _nonempty(tc.get("type"))
        fn = tc.get("function")
        if type(fn) is not dict:
            return
        if call.name is None:
            call.name = _nonempty(fn.get("name"))
        if args := _nonempty(fn.get("arguments")):
            call._arguments.append(args)
            call.fragments += 1
            if call.json is not None:
                call.json.feed(args)


def reassemble(body: bytes) -> Reassembler:
    """Fold a whole body at once; for tests and small inputs."""
    r = Reassembler()
    r.feed(body)
    r.finish()
    return r
