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

from sseconform.providers import CHAT_FINISH_REASONS

DONE = "[DONE]"
DELTA_SUFFIX = b',"logprobs":null,"finish_reason":null}]}\n\n'
#: A chunk or error frame as a dict, "[DONE]", or (in byte mode) a frame already serialized.
Frame = dict[str, Any] | str | bytes


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


class MalformedUpstream(ValueError):
    """An upstream event the translator cannot represent (a choice index out of range, a call
    without a name): the translation ends with the grammar's error frame."""


#: What a malformed upstream event can raise in a translator: each translator's feed and
#: finish turn these into one error frame then [DONE], never an exception.
MALFORMED = (
    MalformedUpstream,
    TypeError,
    ValueError,
    AttributeError,
    KeyError,
    IndexError,
    RecursionError,
    OverflowError,
)
#: OpenAI allows n up to 128 choices; a larger index is not a stream to fill in.
MAX_CHOICES = 128
_MAX_CREATED = 2**53


class Guarded:
    """What every translator shares: ``finish`` turns a malformed upstream into the
    grammar's error frame. (``feed`` does the same inline in each translator: it is the hot
    path, where one more call per event shows in the benchmark.)"""

    e: Emitter

    def finish(self) -> list[Frame]:
        try:
            return self._end_of_stream()
        except MALFORMED as exc:  # a malformed upstream: the grammar's error frame
            return self.e.malformed("end of the stream", exc)

    def _end_of_stream(self) -> list[Frame]:
        raise NotImplementedError


@dataclass
class _ChoiceOut:
    started: bool = False
    finished: bool = False
    calls: int = 0  # calls emitted (dense index)
    details: int = 0  # reasoning_details entries emitted (their index)
    keyed: dict[object, int] = field(default_factory=dict)  # a value's key -> its entry


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
    _sent: bool = False  # a chunk went out: the head is fixed
    #: Byte mode: content and argument chunks leave already serialized, from a cached prefix
    #: (the same bytes orjson gives for the dict). translate_body uses it; the library API
    #: (frames as dicts) does not.
    raw: bool = False
    _prefix: tuple[tuple[str, str, int, int], bytes] | None = None
    # ``created`` when the upstream gives none (Anthropic, Gemini): the caller's (a
    # recording's date), else 0 -- never the clock, so the same input translates the same.

    def head(self, id: object, model: object, created: object = None) -> None:
        """Set the id, model and created every chunk carries (first call wins). Values of the
        wrong type are ignored, and nothing changes once a chunk has gone out: every chunk
        of a translation carries the same id, model and created."""
        if self._sent:
            return
        if not self.id and isinstance(id, str) and id:
            self.id = id
        if not self.model and (self.model_override or (isinstance(model, str) and model)):
            self.model = self.model_override or str(model)
        if (
            type(created) is int and 0 < created < _MAX_CREATED and not self._upstream_created
        ):  # the upstream's time beats the fallback
            self.created = created
            self._upstream_created = True

    def _chunk(self, index: int, delta: dict[str, Any], finish: str | None = None) -> None:
        if self.closed:
            return  # nothing after [DONE] (or after an error frame)
        self._sent = True
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
            if type(index) is not int or not 0 <= index < MAX_CHOICES:
                raise MalformedUpstream(f"choice index {index!r} out of range")
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

    def reasoning(self, text: str, index: int = 0) -> None:
        if text and not self.closed:
            self._choice(index)
            self._chunk(index, {"reasoning_content": text})

    def state(self, entry: dict[str, Any], index: int = 0, key: object = None) -> None:
        """Opaque state the client must send back on its next turn (a thinking signature,
        encrypted reasoning, a thought signature), as one OpenRouter ``reasoning_details``
        entry: the chat carrier real clients read and send back (see ``translate.state``).
        Pieces of one value (a signature in two deltas) share a ``key``, hence an entry
        index: a client joins them by it."""
        if not self.closed:
            c = self._choice(index)
            at = c.keyed.get(key) if key is not None else None
            if at is None:
                at = c.details
                c.details += 1
                if key is not None:
                    c.keyed[key] = at
            self._chunk(index, {"reasoning_details": [{**entry, "index": at}]})

    def refusal(self, text: str, index: int = 0) -> None:
        if text and not self.closed:
            self._choice(index)
            self._chunk(index, {"refusal": text})

    def call(self, id: str, name: str, arguments: str = "", index: int = 0) -> int:
        """A new tool call: its head, then its arguments if given whole. Returns its index.

        A call without an id gets a stable one; a call without a name cannot be called, so
        it is a malformed upstream."""
        if not isinstance(name, str) or not name:
            raise MalformedUpstream("a tool call without a name")
        c = self._choice(index)
        n = c.calls
        if not isinstance(id, str) or not id:
            id = stable_id("call_", self.id, index, n)
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

    def finish(self, reason: str, index: int = 0) -> None:
        """The finish chunk; ``stop`` becomes ``tool_calls`` when calls were made."""
        c = self._choice(index)
        if c.finished or self.closed:
            return
        if reason == "stop" and c.calls:
            reason = "tool_calls"
        elif reason == "tool_calls" and not c.calls:
            reason = "stop"  # no call was made: tool_calls would promise one
        c.finished = True
        self._chunk(index, {}, reason if reason in CHAT_FINISH_REASONS else "stop")

    def set_usage(
        self,
        prompt: int | None,
        completion: int | None,
        *,
        cached: int | None = None,
        reasoning: int | None = None,
    ) -> None:
        p = prompt if type(prompt) is int and prompt >= 0 else 0
        c = completion if type(completion) is int and completion >= 0 else 0
        usage: dict[str, Any] = {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c}
        if type(cached) is int and cached >= 0:
            usage["prompt_tokens_details"] = {"cached_tokens": cached}
        if type(reasoning) is int and reasoning >= 0:
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
        text = message if isinstance(message, str) else str(message)
        kind = type if isinstance(type, str) or type is None else "upstream_error"
        err: dict[str, Any] = {"message": text or "upstream error", "type": kind}
        if isinstance(code, str) or (isinstance(code, int) and not isinstance(code, bool)):
            err["code"] = code  # the upstream's code when it is one; anything else is dropped
        self.out.append({"error": err})
        self.out.append(DONE)
        self.closed = True

    def ended_early(self, how: str) -> None:
        """The upstream's body ended before its own end mark: error frame, then [DONE]."""
        self.error(f"the upstream stream ended {how}", "upstream_truncated")

    def malformed(self, where: str, exc: BaseException) -> list[Frame]:
        """The translation of a malformed upstream: what went out stays, then one error
        frame and [DONE] (a gateway's right answer too), and nothing after."""
        what = str(exc)[:160] if isinstance(exc, MalformedUpstream) else type(exc).__name__
        self.error(f"malformed upstream {where}: {what}", "upstream_malformed")
        return self.take()

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
