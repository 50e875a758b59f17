"""Gemini ``streamGenerateContent?alt=sse`` responses -> chat chunks.

Each event is a whole GenerateContentResponse. Text parts stream as content, ``thought``
parts as ``reasoning_content``. A ``functionCall`` arrives whole (name and args), or streamed:
a part with the name and ``willContinue``, then parts with ``partialArgs`` records (JSONPath +
value) that ArgsBuilder turns into JSON text as they come, then an empty ``functionCall``.
Gemini gives no call ids, so they are derived from the response id and the call's position:
stable for the same input. A part's ``thoughtSignature`` becomes a ``reasoning_details``
entry (:mod:`.state`) just before the part, with the call's id on a call's part. There is
no [DONE]: the finish reason ends a candidate, the end of the body ends the stream.
"""

from __future__ import annotations

import json
from typing import Any

from sseconform import providers
from sseconform.sse import Event
from sseconform.translate.base import MALFORMED, Emitter, Frame, Guarded, loads, stable_id
from sseconform.translate.jsonpath import ArgsBuilder
from sseconform.translate.lane import Candidate, Unnumbered
from sseconform.translate.state import GEMINI, encrypted

FINISH = providers.GEMINI_FINISH


class _Streaming:
    __slots__ = ("builder", "call")

    def __init__(self, call: int) -> None:
        self.call = call
        self.builder = ArgsBuilder()


class GeminiTranslator(Guarded, Unnumbered):
    dialect = "gemini"

    def __init__(self, emitter: Emitter) -> None:
        self.e = emitter
        self._open: dict[int, _Streaming] = {}  # candidate -> the call being streamed
        self._reasons: dict[int, str] = {}  # candidate -> its latest finish reason
        self._calls_seen = 0
        self._seed = ""
        #: the last event, when it was candidate 0's plain text part (translate --to's lane)
        self._lane: tuple[Event, dict[str, Any]] | None = None

    def feed(self, ev: Event) -> list[Frame]:
        self._lane = None
        try:
            obj = loads(ev.data)
            if not isinstance(obj, dict) or self.e.closed:
                return self.e.take()
            if "error" in obj and "candidates" not in obj:
                err = obj.get("error") or {}
                if isinstance(err, dict):
                    self.e.error(
                        str(err.get("message", "upstream error")),
                        err.get("status"),
                        err.get("code"),
                    )
                else:
                    self.e.error(str(err))
                return self.e.take()
            if not self._seed:
                self._seed = str(obj.get("responseId") or ev.data[:200])
                self.e.head(
                    obj.get("responseId") and f"chatcmpl-{obj['responseId']}",
                    obj.get("modelVersion"),
                )
            self._usage(obj)
            feedback = obj.get("promptFeedback")
            blocked = isinstance(feedback, dict) and feedback.get("blockReason")
            if blocked and not obj.get("candidates"):
                self.e.start()
                self._reasons[0] = "SAFETY"  # the prompt was blocked: nothing will follow
            candidates = obj.get("candidates") or []
            for pos, cand in enumerate(candidates):
                if isinstance(cand, dict):
                    self._candidate(int(cand.get("index", pos)), cand)
            one = type(candidates) is list and len(candidates) == 1 and not blocked
            if one and "error" not in obj and _plain_text(candidates[0]):
                self._lane = (ev, obj)
            return self.e.take()
        except MALFORMED as exc:  # a malformed upstream: the grammar's error frame
            return self.e.malformed(f"event {ev.frame}", exc)

    def _usage(self, obj: dict[str, Any]) -> None:
        usage = obj.get("usageMetadata")
        if isinstance(usage, dict) and "promptTokenCount" in usage:
            thoughts = usage.get("thoughtsTokenCount")
            completion = (usage.get("candidatesTokenCount") or 0) + (thoughts or 0)
            self.e.set_usage(
                usage.get("promptTokenCount"),
                completion,
                cached=usage.get("cachedContentTokenCount"),
                reasoning=thoughts,
            )

    # -- translate --to's fast lane (sseconform.translate.lane) ------------------------------

    def lane_candidate(self) -> Candidate | None:
        """The last event, to be cut around its text and its usage counts, if it was candidate 0's
        plain text part: an event equal to it but for those adds that text and nothing else
        (the head is set by the first event only; a call being streamed is not touched by a
        text part); the usage is read from the last one the lane took (``lane_took``)."""
        if self._lane is None or self.e.closed:
            return None
        ev, obj = self._lane
        path = ("candidates", 0, "content", "parts", 0, "text")
        return Candidate(ev, obj, path, -1, numbers="usageMetadata")

    def lane_took(self, event: bytes) -> None:
        """The usage the last event the lane took carried, as ``feed`` would have set it."""
        obj = loads(event[event.index(b"data: ") + 6 :].decode())
        if type(obj) is dict:
            self._usage(obj)

    def _end_of_stream(self) -> list[Frame]:
        """Gemini has no [DONE] and older streams repeat finishReason on every chunk, so a
        candidate finishes when the body ends, with the last reason it was given."""
        if not self.e.closed:
            for index in list(self._open):
                self._end_call(index)
            if "MALFORMED_FUNCTION_CALL" in self._reasons.values():
                self.e.error(
                    "the model produced a malformed function call",
                    "upstream_error",
                    "MALFORMED_FUNCTION_CALL",
                )
            elif self.e.choices and all(i in self._reasons for i in self.e.choices):
                for index, reason in self._reasons.items():
                    self.e.finish(FINISH.get(reason, "stop"), index)
                self.e.done()
            else:
                self.e.ended_early("without a finish reason")
        return self.e.take()

    def _candidate(self, index: int, cand: dict[str, Any]) -> None:
        self.e.start(index)
        content = cand.get("content") or {}
        for part in content.get("parts") or []:
            if isinstance(part, dict):
                self._part(index, part)
        reason = cand.get("finishReason")
        if reason:
            self._end_call(index)  # a finish closes the call being streamed
            self._reasons[index] = str(reason)

    def _part(self, index: int, part: dict[str, Any]) -> None:
        sig = part.get("thoughtSignature")
        fc = part.get("functionCall")
        if isinstance(sig, str) and sig:
            cid = None
            if isinstance(fc, dict) and fc.get("name"):
                cid = self._call_id(fc, self._calls_seen + 1)  # the id the call gets below
            self.e.state(encrypted(sig, GEMINI, cid), index)
        if "text" in part:
            if part.get("thought"):
                self.e.reasoning(str(part["text"]), index)
            else:
                self.e.text(str(part["text"]), index)
        if not isinstance(fc, dict):
            return
        streaming = self._open.get(index)
        if streaming is not None and fc.get("name"):
            self._end_call(index)  # a new call starts: the previous one is whole
            streaming = None
        if fc.get("name") and "partialArgs" not in fc and not fc.get("willContinue"):
            self._calls_seen += 1
            cid = self._call_id(fc, self._calls_seen)
            args = fc.get("args")
            self.e.call(cid, str(fc["name"]), json.dumps(args if args is not None else {}), index)
            return
        if fc.get("name"):
            self._calls_seen += 1
            cid = self._call_id(fc, self._calls_seen)
            streaming = self._open[index] = _Streaming(self.e.call(cid, str(fc["name"]), "", index))
        if streaming is None:
            return
        for record in fc.get("partialArgs") or []:
            if isinstance(record, dict):
                self.e.arguments(streaming.call, streaming.builder.feed(record), index)
        if not fc.get("willContinue") and not fc.get("partialArgs") and not fc.get("name"):
            self._end_call(index)  # the empty functionCall that closes a streamed call

    def _call_id(self, fc: dict[str, Any], n: int) -> str:
        """A call's id: its own, or one derived from the response and the call's number."""
        return str(fc.get("id") or stable_id("call_", self._seed, n))

    def _end_call(self, index: int) -> None:
        streaming = self._open.pop(index, None)
        if streaming is not None:
            self.e.arguments(streaming.call, streaming.builder.close(), index)


def _plain_text(cand: Any) -> bool:
    """Candidate 0 with one text part (not a thought, no call) and no finish reason."""
    if type(cand) is not dict or cand.get("finishReason") or cand.get("index", 0) != 0:
        return False
    if type(cand.get("index", 0)) is not int:
        return False
    content = cand.get("content")
    parts = content.get("parts") if type(content) is dict else None
    if type(parts) is not list or len(parts) != 1 or type(parts[0]) is not dict:
        return False
    part = parts[0]
    text = part.get("text")
    return (
        type(text) is str and bool(text) and not part.get("thought") and "functionCall" not in part
    )
