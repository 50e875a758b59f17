"""OpenAI Responses API events -> chat chunks.

Events are put back in ``sequence_number`` order (a small reorder buffer) before anything is
emitted. ``output_index`` counts reasoning and message items too, so function calls get the
next dense index when their item is added; their id is the item's ``call_id``. Reasoning
summary text streams as ``reasoning_content``; a reasoning item's ``encrypted_content`` as a
``reasoning_details`` entry (:mod:`.state`), when its item is done; refusals as ``refusal``.
``response.incomplete`` maps its reason (max_output_tokens -> length, content_filter ->
content_filter); ``response.failed`` and ``error`` become an error frame then [DONE].
"""

from __future__ import annotations

from typing import Any

from sseconform.sse import Event
from sseconform.translate.base import MALFORMED, Emitter, Frame, Guarded, loads
from sseconform.translate.lane import Candidate, Unnumbered
from sseconform.translate.state import RESPONSES, encrypted

MAX_PENDING = 64  # events held waiting for a missing number; beyond that the gap is skipped


class ResponsesTranslator(Guarded, Unnumbered):
    dialect = "responses"

    def __init__(self, emitter: Emitter) -> None:
        self.e = emitter
        self._calls: dict[int, int] = {}  # output_index -> call index
        self._sent: dict[int, int] = {}  # call index -> argument characters sent
        self._next_seq: int | None = None
        self._pending: dict[int, dict[str, Any]] = {}
        #: the event being fed, its object, and (call, output index) when it was a plain
        #: text or arguments delta handled at once: for translate --to's fast lane
        self._lane_ev: Event | None = None
        self._lane_obj: Any = None
        self._lane: tuple[int, int] | None = None

    def feed(self, ev: Event) -> list[Frame]:
        self._lane = None
        try:
            obj = loads(ev.data)
            self._lane_ev, self._lane_obj = ev, obj
            if not isinstance(obj, dict) or self.e.closed:
                return self.e.take()
            seq = obj.get("sequence_number")
            if type(seq) is not int:
                self._handle(obj)
                return self.e.take()
            if self._next_seq is None:
                # from 0, or from where the stream's first event says it starts (a stream
                # numbered from 1 is not held back waiting for a 0 that never comes)
                self._next_seq = seq if obj.get("type") == "response.created" else 0
            if seq < self._next_seq:  # late, or repeated: nothing waits for it any more
                self._handle(obj)
                return self.e.take()
            self._pending[seq] = obj
            while self._next_seq in self._pending:
                self._handle(self._pending.pop(self._next_seq))
                self._next_seq += 1
            if len(self._pending) > MAX_PENDING:  # a gap that never fills: stop waiting for it
                self._flush()
            return self.e.take()
        except MALFORMED as exc:  # a malformed upstream: the grammar's error frame
            return self.e.malformed(f"event {ev.frame}", exc)

    def _end_of_stream(self) -> list[Frame]:
        self._flush()
        if not self.e.closed:
            self.e.ended_early("before response.completed")
        return self.e.take()

    def _flush(self) -> None:
        """Hand over everything held, in order, and expect the number after the last."""
        for seq in sorted(self._pending):
            self._handle(self._pending.pop(seq))
            self._next_seq = seq + 1

    def _handle(self, obj: dict[str, Any]) -> None:
        kind = str(obj.get("type", ""))
        if kind in ("response.created", "response.in_progress"):
            resp = obj.get("response") or {}
            self.e.head(resp.get("id"), resp.get("model"), resp.get("created_at"))
            self.e.start()
        elif kind == "response.output_item.added":
            item = obj.get("item") or {}
            if item.get("type") == "function_call":
                cid = str(item.get("call_id") or item.get("id") or "")
                call = self.e.call(cid, str(item.get("name", "")))
                self._calls[_index(obj)] = call
                self._sent[call] = 0
                if item.get("arguments"):
                    self._args(call, str(item["arguments"]))
        elif kind == "response.output_item.done":
            item = obj.get("item") or {}
            content = item.get("encrypted_content") if isinstance(item, dict) else None
            if item.get("type") == "reasoning" and isinstance(content, str) and content:
                iid = item.get("id")
                self.e.state(encrypted(content, RESPONSES, iid if isinstance(iid, str) else None))
        elif kind == "response.output_text.delta":
            self.e.text(str(obj.get("delta", "")))
            if obj is self._lane_obj:
                self._lane = (-1, -1)
        elif kind == "response.refusal.delta":
            self.e.refusal(str(obj.get("delta", "")))
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            self.e.reasoning(str(obj.get("delta", "")))
        elif kind == "response.function_call_arguments.delta":
            streamed = self._calls.get(_index(obj))
            if streamed is not None:
                self._args(streamed, str(obj.get("delta", "")))
                if obj is self._lane_obj:
                    self._lane = (streamed, _index(obj))
        elif kind == "response.function_call_arguments.done":
            done = self._calls.get(_index(obj))
            whole = str(obj.get("arguments", ""))
            if done is not None and self._sent.get(done, 0) == 0 and whole:
                self._args(done, whole)  # sent whole, never streamed
        elif kind == "response.completed":
            self._usage(obj.get("response") or {})
            self.e.finish("stop")
            self.e.done()
        elif kind == "response.incomplete":
            resp = obj.get("response") or {}
            reason = (resp.get("incomplete_details") or {}).get("reason")
            self._usage(resp)
            self.e.finish("content_filter" if reason == "content_filter" else "length")
            self.e.done()
        elif kind == "response.failed":
            err = (obj.get("response") or {}).get("error") or {}
            self.e.error(
                str(err.get("message", "the response failed")), "upstream_error", err.get("code")
            )
        elif kind == "error":
            raw = obj.get("error")
            nested: dict[str, Any] = raw if isinstance(raw, dict) else {}
            msg = obj.get("message") or nested.get("message") or "upstream error"
            self.e.error(str(msg), "upstream_error", obj.get("code") or nested.get("code"))

    # -- translate --to's fast lane (sseconform.translate.lane) ------------------------------

    def lane_candidate(self) -> Candidate | None:
        """The last event, to be cut around its delta string and its sequence number, if it was a
        plain text or arguments delta handled as it came (nothing held for reordering); for
        a call, one still named by its output index with arguments sent already (so its
        ``.done`` is not taken for a whole call's). The lane checks each number."""
        if self._lane is None or self._pending or self.e.closed or self._lane_ev is None:
            return None
        ev, (call, at) = self._lane_ev, self._lane
        if call >= 0 and (self._calls.get(at) != call or self._sent.get(call, 0) == 0):
            return None
        if type(self._lane_obj) is not dict:
            return None
        return Candidate(ev, self._lane_obj, ("delta",), call, seq=True)

    def lane_next(self) -> int:
        return -1 if self._next_seq is None else self._next_seq

    def lane_set_next(self, n: int) -> None:
        self._next_seq = n

    def _args(self, call: int, fragment: str) -> None:
        self._sent[call] = self._sent.get(call, 0) + len(fragment)
        self.e.arguments(call, fragment)

    def _usage(self, resp: dict[str, Any]) -> None:
        u = resp.get("usage")
        if not isinstance(u, dict):
            return
        cached = (u.get("input_tokens_details") or {}).get("cached_tokens")
        reasoning = (u.get("output_tokens_details") or {}).get("reasoning_tokens")
        self.e.set_usage(
            u.get("input_tokens"), u.get("output_tokens"), cached=cached, reasoning=reasoning
        )


def _index(obj: dict[str, Any]) -> int:
    value = obj.get("output_index")
    return value if type(value) is int else -1
