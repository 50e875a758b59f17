"""What a client ends up with: a chunk stream folded into per-choice text, reasoning and calls.

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
stream's size however many fragments it has.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from sseconform.sse import SSEDecoder

__all__ = ["ChoiceState", "Reassembler", "ToolCallState", "reassemble"]

DONE = "[DONE]"


def _joined(parts: list[str]) -> str:
    """Join once and keep the result: reading again before new parts arrive costs nothing.

    Reading after every fragment still copies the whole string each time; a live view that
    must stay linear should render the deltas, not re-read the total.
    """
    if len(parts) > 1:
        parts[:] = ["".join(parts)]
    return parts[0] if parts else ""


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
    _arguments: list[str] = field(default_factory=list, repr=False)

    @property
    def arguments(self) -> str:
        """All ``function.arguments`` fragments, in order."""
        return _joined(self._arguments)

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
    _text: list[str] = field(default_factory=list, repr=False)
    _reasoning: list[str] = field(default_factory=list, repr=False)
    _refusal: list[str] = field(default_factory=list, repr=False)

    @property
    def text(self) -> str:
        """All ``content`` deltas, in order."""
        return _joined(self._text)

    @property
    def reasoning(self) -> str:
        """All ``reasoning_content`` (or, where a provider uses it, ``reasoning``) deltas."""
        return _joined(self._reasoning)

    @property
    def refusal(self) -> str:
        """All ``refusal`` deltas, in order."""
        return _joined(self._refusal)

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

    __slots__ = ("_decoder", "choices", "done", "error", "id", "model", "usage")

    def __init__(self) -> None:
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
        if type(obj) is not dict:
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
            c = self.choices[idx] = ChoiceState(idx)
        delta = ch.get("delta")
        if type(delta) is dict and delta:
            self._delta(c, delta)
        fr = ch.get("finish_reason")
        if type(fr) is str and fr:
            c.finish_reason = fr  # a repeated finish_reason replaces, as in the SDK snapshot

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


def reassemble(body: bytes) -> Reassembler:
    """Fold a whole body at once; for tests and small inputs."""
    r = Reassembler()
    r.feed(body)
    r.finish()
    return r
