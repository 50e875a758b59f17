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
DELTA_SUFFIX = b',"logprobs":null,"finish_reason":null}]}\n\n'
#: A chunk or error frame as a dict, "[DONE]", or (in byte mode) a frame already serialized.
Frame = dict[str, Any] | str | bytes

FINISH_REASONS = ("stop", "length", "tool_calls", "content_filter")


def serialize(frame: Frame) -> bytes:
    """One frame as SSE: ``data: <json>`` and a blank line."""
    if type(frame) is bytes:
        return frame
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
    #: Byte mode: content and argument chunks leave already serialized, from a cached prefix
    #: (the same bytes orjson gives for the dict). translate_body uses it; the library API
    #: (frames as dicts) does not.
    raw: bool = False
    _prefix: tuple[tuple[str, str, int, int], bytes] | None = None
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

    def delta_prefix(self, index: int) -> bytes:
        """The bytes of a chunk up to its delta: what orjson gives for the same dict."""
        key = (self.id, self.model, self.created, index)
        if self._prefix is None or self._prefix[0] != key:
            head = orjson.dumps(
                {
                    "id": self.id,
                    "object": "chat.completion.chunk",
                    "created": self.created,
                    "model": self.model,
                }
            )
            self._prefix = (
                key,
                b"data: " + head[:-1] + b',"choices":[{"index":%d,"delta":' % index,
            )
        return self._prefix[1]

    def _delta_bytes(self, index: int, delta: bytes) -> None:
        self.out.append(self.delta_prefix(index) + delta + DELTA_SUFFIX)

    def text(self, text: str, index: int = 0) -> None:
        if text and not self.closed:
            if index not in self.choices or not self.choices[index].started:
                self._choice(index)
            if self.raw:
                self._delta_bytes(index, b'{"content":' + orjson.dumps(text) + b"}")
            else:
                self._chunk(index, {"content": text})

    def text_literal(self, literal: str, index: int = 0) -> None:
        """Content given as its JSON string literal (template path): written as orjson would."""
        if self.raw and "\\" not in literal:  # no escape: the literal is orjson's own bytes
            if len(literal) > 2 and not self.closed:
                if index not in self.choices or not self.choices[index].started:
                    self._choice(index)
                self._delta_bytes(index, b'{"content":' + literal.encode() + b"}")
            return
        self.text(orjson.loads(literal), index)

    def arguments_literal(self, call: int, literal: str, index: int = 0) -> None:
        """An arguments fragment given as its JSON string literal (template path)."""
        if self.raw and "\\" not in literal:
            if len(literal) > 2 and not self.closed:
                self._delta_bytes(
                    index,
                    b'{"tool_calls":[{"index":%d,"function":{"arguments":%b}}]}'
                    % (call, literal.encode()),
                )
            return
        self.arguments(call, orjson.loads(literal), index)

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
            if self.raw:
                args = orjson.dumps(fragment)
                self._delta_bytes(
                    index,
                    b'{"tool_calls":[{"index":%d,"function":{"arguments":%b}}]}' % (call, args),
                )
                return
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
