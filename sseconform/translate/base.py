"""What every translator emits through: an Emitter that can only produce grammar chunks.

A translator decides *what* happened (text, a call, a finish, an error); the Emitter decides
how the chunk grammar says it: the role chunk once and first, tool-call heads with id, type
and name, dense call indexes, one ``delta: {}`` finish chunk per choice, the usage chunk only
when asked, an error frame then ``[DONE]``. So a translator cannot break an invariant by
forgetting one.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import orjson

DONE = "[DONE]"
Frame = dict[str, Any] | str

FINISH_REASONS = ("stop", "length", "tool_calls", "content_filter")


def serialize(frame: Frame) -> bytes:
    """One frame as SSE: ``data: <json>`` and a blank line."""
    if frame == DONE:
        return b"data: [DONE]\n\n"
    return b"data: " + orjson.dumps(frame) + b"\n\n"


def stable_id(prefix: str, *parts: object) -> str:
    """Ids the upstream did not give: unique per call, the same for the same input."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).hexdigest()[:24]
    return f"{prefix}{digest}"


@dataclass
class _ChoiceOut:
    started: bool = False
    finished: bool = False
    calls: int = 0  # calls emitted (dense index)


@dataclass
class Emitter:
    """Builds the chunks of one translated stream."""

    include_usage: bool = False
    model_override: str | None = None
    id: str = ""
    model: str = ""
    created: int = 0
    out: list[Frame] = field(default_factory=list)
    choices: dict[int, _ChoiceOut] = field(default_factory=dict)
    usage: dict[str, Any] | None = None
    closed: bool = False
    _upstream_created: bool = False
    # ``created`` when the upstream gives none (Anthropic, Gemini): the caller's (a
    # recording's date), else 0 -- never the clock, so the same input translates the same.

    def head(self, id: str | None, model: str | None, created: int | None = None) -> None:
        """Set the id, model and created every chunk carries (first call wins)."""
        if not self.id and id:
            self.id = id
        if not self.model and (self.model_override or model):
            self.model = self.model_override or model or ""
        if created and not self._upstream_created:  # the upstream's time beats the fallback
            self.created = int(created)
            self._upstream_created = True

    def _chunk(self, index: int, delta: dict[str, Any], finish: str | None = None) -> None:
        if not self.id:
            self.id = stable_id("chatcmpl-", self.model, self.created)
        self.out.append(
            {
                "id": self.id,
                "object": "chat.completion.chunk",
                "created": self.created,
                "model": self.model,
                "choices": [
                    {"index": index, "delta": delta, "logprobs": None, "finish_reason": finish}
                ],
            }
        )

    def _choice(self, index: int) -> _ChoiceOut:
        c = self.choices.get(index)
        if c is None:
            for i in range(len(self.choices), index):  # choices come dense from 0
                self._choice(i)
            c = self.choices[index] = _ChoiceOut()
        if not c.started:
            c.started = True
            self._chunk(index, {"role": "assistant", "content": ""})
        return c

    def start(self, index: int = 0) -> None:
        self._choice(index)

    def text(self, text: str, index: int = 0) -> None:
        if text and not self.closed:
            self._choice(index)
            self._chunk(index, {"content": text})

    def reasoning(self, text: str, index: int = 0) -> None:
        if text and not self.closed:
            self._choice(index)
            self._chunk(index, {"reasoning_content": text})

    def refusal(self, text: str, index: int = 0) -> None:
        if text and not self.closed:
            self._choice(index)
            self._chunk(index, {"refusal": text})

    def call(self, id: str, name: str, arguments: str = "", index: int = 0) -> int:
        """A new tool call: its head, then its arguments if given whole. Returns its index."""
        c = self._choice(index)
        n = c.calls
        c.calls += 1
        head = {
            "index": n,
            "id": id,
            "type": "function",
            "function": {"name": name, "arguments": ""},
        }
        self._chunk(index, {"tool_calls": [head]})
        if arguments:
            self.arguments(n, arguments, index)
        return n

    def arguments(self, call: int, fragment: str, index: int = 0) -> None:
        if fragment and not self.closed:
            frag = {"index": call, "function": {"arguments": fragment}}
            self._chunk(index, {"tool_calls": [frag]})

    def calls_made(self, index: int = 0) -> int:
        c = self.choices.get(index)
        return c.calls if c else 0

    def finish(self, reason: str, index: int = 0) -> None:
        """The finish chunk; ``stop`` becomes ``tool_calls`` when calls were made."""
        c = self._choice(index)
        if c.finished or self.closed:
            return
        if reason == "stop" and c.calls:
            reason = "tool_calls"
        c.finished = True
        self._chunk(index, {}, reason if reason in FINISH_REASONS else "stop")

    def set_usage(
        self,
        prompt: int | None,
        completion: int | None,
        *,
        cached: int | None = None,
        reasoning: int | None = None,
    ) -> None:
        p, c = prompt or 0, completion or 0
        usage: dict[str, Any] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
        if cached is not None:
            usage["prompt_tokens_details"] = {"cached_tokens": cached}
        if reasoning is not None:
            usage["completion_tokens_details"] = {"reasoning_tokens": reasoning}
        self.usage = usage

    def done(self) -> None:
        """The end of a stream that finished: open choices finish, usage if asked, [DONE]."""
        if self.closed:
            return
        if not self.choices:
            self._choice(0)
        for i in list(self.choices):
            self.finish("stop", i)
        if self.include_usage and self.usage is not None:
            self.out.append(
                {
                    "id": self.id,
                    "object": "chat.completion.chunk",
                    "created": self.created,
                    "model": self.model,
                    "choices": [],
                    "usage": self.usage,
                }
            )
        self.out.append(DONE)
        self.closed = True

    def error(self, message: str, type: str | None = "upstream_error", code: Any = None) -> None:
        """An upstream failure after the stream began: one error frame, then [DONE]."""
        if self.closed:
            return
        err: dict[str, Any] = {"message": message or "upstream error", "type": type}
        if code is not None:
            err["code"] = code
        self.out.append({"error": err})
        self.out.append(DONE)
        self.closed = True

    def take(self) -> list[Frame]:
        out = self.out
        self.out = []
        return out


def loads(data: str) -> Any:
    """Parse an event's JSON; None when it is not JSON (a translator skips it)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
