"""OpenAI-compatible chat streams that stray from the grammar -> the grammar.

Each quirk real providers show is normalised: Azure's empty prompt-filter chunk is dropped;
``object`` is always ``chat.completion.chunk`` (Perplexity's ``chat.completion.done``) and id,
model and created stay those of the first chunk; role is sent once; a repeated finish reason
(OpenRouter) is dropped and a finish that carries content is split into the content, then
``delta: {}``; calls without an index (Mistral) are keyed by id; whole-argument calls are sent
as a head then the arguments; id and name appear on a call's first delta only; indexes are
dense from 0; ``reasoning``/``reasoning_details`` text becomes ``reasoning_content`` (the
state in ``reasoning_details``, signatures and encrypted data, is passed on); a stream
without [DONE] or without a finish reason (Snowflake) is completed; Groq's ``event: error``
and ``{"error": ...}`` frames become an error frame then [DONE]; usage counts the reasoning in
``completion_tokens`` (xAI leaves it out).
"""

from __future__ import annotations

from typing import Any

from sseconform.providers import CHAT_FINISH_REASONS
from sseconform.sse import Event
from sseconform.translate.base import DONE, MALFORMED, Emitter, Frame, Guarded, loads, stable_id
from sseconform.translate.lane import Candidate, Unnumbered
from sseconform.translate.state import value_of


class _Choice:
    __slots__ = ("calls", "finish", "ids", "last")

    def __init__(self) -> None:
        self.calls: dict[int, int] = {}  # upstream index -> dense index
        self.ids: dict[str, int] = {}  # call id -> dense index
        self.finish: str | None = None
        self.last: int | None = None


class OpenAITranslator(Guarded, Unnumbered):
    dialect = "openai"

    def __init__(self, emitter: Emitter) -> None:
        self.e = emitter
        self._choices: dict[int, _Choice] = {}
        self._seen_done = False
        #: the last event, when it was a plain content or arguments delta of choice 0:
        #: (event, object, path of its string, call or -1), for ``translate --to``'s fast lane
        self._lane: tuple[Event, dict[str, Any], tuple[str | int, ...], int] | None = None
        self._made = False  # the event being fed made a new call

    def feed(self, ev: Event) -> list[Frame]:
        self._lane = None
        try:
            if self.e.closed:
                return self.e.take()
            if ev.data.strip() == DONE:
                self._seen_done = True
                self._end()
                return self.e.take()
            obj = loads(ev.data)
            if not isinstance(obj, dict):
                return self.e.take()
            if obj.get("error"):
                # openai-python raises on any truthy `error`, on a chunk with choices too
                # (OpenRouter sends one after the finish chunk): the stream failed there
                err = obj["error"]
                if isinstance(err, dict):
                    self.e.error(
                        str(err.get("message", "upstream error")), err.get("type"), err.get("code")
                    )
                else:
                    self.e.error(str(err))
                return self.e.take()
            if ev.event == "error":
                self.e.error(str(obj.get("message", ev.data[:200])))
                return self.e.take()
            choices = obj.get("choices")
            usage = obj.get("usage")
            if isinstance(usage, dict) and isinstance(usage.get("prompt_tokens"), int):
                details = usage.get("prompt_tokens_details") or {}
                cdetails = usage.get("completion_tokens_details") or {}
                reasoning = cdetails.get("reasoning_tokens") if isinstance(cdetails, dict) else None
                self.e.set_usage(
                    usage.get("prompt_tokens"),
                    _completion(usage, reasoning),
                    cached=details.get("cached_tokens") if isinstance(details, dict) else None,
                    reasoning=reasoning,
                )
            if not isinstance(choices, list) or not choices:
                return self.e.take()  # Azure's prompt-filter chunk, a usage chunk
            self.e.head(obj.get("id") or None, obj.get("model"), obj.get("created"))
            self._made = False
            for pos, ch in enumerate(choices):
                if isinstance(ch, dict):
                    self._choice(
                        int(ch.get("index", pos)) if isinstance(ch.get("index", pos), int) else pos,
                        ch,
                    )
            if len(choices) == 1 and ev.event != "error" and type(usage) is not dict:
                self._lane = self._plain_delta(ev, obj, choices[0])
            return self.e.take()
        except MALFORMED as exc:  # a malformed upstream: the grammar's error frame
            return self.e.malformed(f"event {ev.frame}", exc)

    # -- translate --to's fast lane (sseconform.translate.lane) ------------------------------

    def _plain_delta(
        self, ev: Event, obj: dict[str, Any], ch: Any
    ) -> tuple[Event, dict[str, Any], tuple[str | int, ...], int] | None:
        """This chunk, if it was choice 0's plain content delta, or an arguments delta of a
        call it had already: a chunk equal to it but for that string would do nothing else
        (the head is fixed once a chunk went out, the call is found the same way, the
        reasoning and refusal keys say nothing, no finish, no usage)."""
        if type(ch) is not dict or type(ch.get("index", 0)) is not int or ch.get("index", 0):
            return None
        c = self._choices.get(0)
        delta = ch.get("delta")
        if c is None or c.finish is not None or ch.get("finish_reason") or type(delta) is not dict:
            return None
        for key in ("reasoning_content", "reasoning", "reasoning_details", "refusal"):
            if delta.get(key) not in (None, ""):
                return None
        content, calls = delta.get("content"), delta.get("tool_calls")
        if type(content) is str and content and not calls:
            return (ev, obj, ("choices", 0, "delta", "content"), -1)
        if content not in (None, "") or type(calls) is not list or len(calls) != 1:
            return None
        fn = calls[0].get("function") if type(calls[0]) is dict else None
        if self._made or c.last is None or type(fn) is not dict:
            return None
        args = fn.get("arguments")
        if type(args) is not str or not args:
            return None
        return (ev, obj, ("choices", 0, "delta", "tool_calls", 0, "function", "arguments"), c.last)

    def lane_candidate(self) -> Candidate | None:
        if self._lane is None or self.e.closed:
            return None
        return Candidate(*self._lane)

    def _end_of_stream(self) -> list[Frame]:
        if not self.e.closed:
            if self._choices and all(c.finish for c in self._choices.values()):
                self._end()  # finished but no [DONE]: the grammar's end is added
            elif self._seen_done:
                self._end()
            else:
                self.e.ended_early("without a finish reason")
        return self.e.take()

    def _end(self) -> None:
        for i, c in self._choices.items():
            self.e.finish(c.finish or "stop", i)
        self.e.done()

    def _choice(self, index: int, ch: dict[str, Any]) -> None:
        c = self._choices.get(index)
        if c is None:
            c = self._choices[index] = _Choice()
            self.e.start(index)
        if c.finish is not None:
            return  # after the finish (a repeated finish, a trailing chunk): dropped
        raw = ch.get("delta")
        delta: dict[str, Any] = raw if isinstance(raw, dict) else {}
        if isinstance(delta.get("content"), str):
            self.e.text(delta["content"], index)
        reasoning = delta.get("reasoning_content") or delta.get("reasoning")
        if isinstance(reasoning, str):
            self.e.reasoning(reasoning, index)
        details = delta.get("reasoning_details")
        if isinstance(details, list):
            for d in details:
                if not reasoning and isinstance(d, dict) and isinstance(d.get("text"), str):
                    self.e.reasoning(d["text"], index)
                carried = value_of(d)
                if carried is not None:  # state the client must send back: passed on
                    assert isinstance(d, dict)
                    keep = ("type", "signature", "data", "id", "format")
                    self.e.state({k: d[k] for k in keep if k in d}, index)
        if isinstance(delta.get("refusal"), str):
            self.e.refusal(delta["refusal"], index)
        for tc in delta.get("tool_calls") or []:
            if isinstance(tc, dict):
                self._tool(index, c, tc)
        reason = ch.get("finish_reason")
        if isinstance(reason, str) and reason:
            c.finish = reason if reason in CHAT_FINISH_REASONS else "stop"

    def _tool(self, index: int, c: _Choice, tc: dict[str, Any]) -> None:
        raw = tc.get("function")
        fn: dict[str, Any] = raw if isinstance(raw, dict) else {}
        tid = tc.get("id") if isinstance(tc.get("id"), str) and tc.get("id") else None
        upstream = tc.get("index")
        call: int | None
        if isinstance(upstream, int) and not isinstance(upstream, bool):
            call = c.calls.get(upstream)
            if call is None and tid is not None and tid in c.ids:
                call = c.calls[upstream] = c.ids[tid]  # the same call under another index
        elif tid is not None:  # no index (Mistral): the id says which call
            call = c.ids.get(tid)
        else:  # neither: it continues the call before it
            call = c.last
        if call is None:
            cid = tid or stable_id("call_", self.e.id, index, len(c.ids))
            name = fn["name"] if isinstance(fn.get("name"), str) else ""
            call = self.e.call(cid, name, "", index)
            self._made = True
            c.ids[cid] = call
            if isinstance(upstream, int) and not isinstance(upstream, bool):
                c.calls[upstream] = call
        c.last = call
        args = fn["arguments"] if isinstance(fn.get("arguments"), str) else ""
        self.e.arguments(call, args, index)


def _completion(usage: dict[str, Any], reasoning: Any) -> Any:
    """``completion_tokens`` with the reasoning in it, as OpenAI counts (the definition
    ``check`` holds, sseconform.rules.usage): xAI leaves reasoning out of it and counts it in
    ``total_tokens``; a gateway may leave it out of both (reasoning above the completion).
    Either way the reasoning is added back, so the total the emitter computes counts it."""
    p, c, t = (usage.get(k) for k in ("prompt_tokens", "completion_tokens", "total_tokens"))
    if not (type(p) is int and type(c) is int and type(reasoning) is int and reasoning > 0):
        return c
    left_out = type(t) is int and p + c != t and p + c + reasoning == t
    return c + reasoning if left_out or reasoning > c else c
