"""Anthropic Messages events -> chat chunks.

Block indexes count every block (text, thinking, tool_use, server tools), so they are not
tool-call indexes: function calls get the next dense index as their ``tool_use`` block starts.
Thinking streams as ``reasoning_content``; signatures, redacted thinking, server-tool blocks
and citations have no place in the chunk grammar and are dropped. ``ping`` is ignored;
``error`` becomes an error frame then [DONE]; a stream that stops before ``message_stop``
ends with an error frame rather than a silent close.
"""

from __future__ import annotations

from typing import Any

from sseconform.sse import Event
from sseconform.translate.base import Emitter, Frame, loads

FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}


class AnthropicTranslator:
    dialect = "anthropic"

    def __init__(self, emitter: Emitter) -> None:
        self.e = emitter
        self._blocks: dict[int, tuple[str, int]] = {}  # block index -> (kind, call index)
        self._finish: str | None = None
        self._usage: dict[str, Any] = {}
        self._started = False
        self._stopped = False

    def feed(self, ev: Event) -> list[Frame]:
        obj = loads(ev.data)
        if not isinstance(obj, dict) or self.e.closed:
            return self.e.take()
        kind = obj.get("type") or ev.event
        if kind == "message_start":
            self._message_start(obj.get("message") or {})
        elif kind == "content_block_start":
            self._block_start(obj)
        elif kind == "content_block_delta":
            self._block_delta(obj)
        elif kind == "message_delta":
            delta = obj.get("delta") or {}
            if delta.get("stop_reason"):
                self._finish = FINISH.get(delta["stop_reason"], "stop")
            self._add_usage(obj.get("usage") or {})
        elif kind == "message_stop":
            self._stopped = True
            self.e.finish(self._finish or "stop")
            self._set_usage()
            self.e.done()
        elif kind == "error":
            err = obj.get("error") or {}
            self.e.error(str(err.get("message", "upstream error")), err.get("type", "api_error"))
        return self.e.take()

    def finish(self) -> list[Frame]:
        if not self.e.closed:
            self.e.error("the upstream stream ended before message_stop", "upstream_truncated")
        return self.e.take()

    def _message_start(self, msg: dict[str, Any]) -> None:
        if self._started:
            # A new message while one is open: the upstream restarted mid-stream. Splicing the
            # two would corrupt whatever was half sent; fail the way the grammar says to.
            self.e.error(
                "the upstream started a new message before the previous one ended",
                "upstream_restart",
            )
            return
        self._started = True
        self.e.head(msg.get("id"), msg.get("model"))
        self._add_usage(msg.get("usage") or {})
        self.e.start()

    def _block_start(self, obj: dict[str, Any]) -> None:
        block = obj.get("content_block") or {}
        index = obj.get("index", len(self._blocks))
        btype = block.get("type")
        if btype == "tool_use":
            call = self.e.call(str(block.get("id", "")), str(block.get("name", "")))
            self._blocks[index] = ("tool", call)
            if block.get("input"):
                import json

                self.e.arguments(call, json.dumps(block["input"]))
        elif btype == "text":
            self._blocks[index] = ("text", -1)
            self.e.text(str(block.get("text") or ""))
        elif btype == "thinking":
            self._blocks[index] = ("thinking", -1)
            self.e.reasoning(str(block.get("thinking") or ""))
        else:  # redacted_thinking, server_tool_use, web_search_tool_result, ...: native only
            self._blocks[index] = ("native", -1)

    def _block_delta(self, obj: dict[str, Any]) -> None:
        delta = obj.get("delta") or {}
        kind, call = self._blocks.get(obj.get("index", -1), ("text", -1))
        dtype = delta.get("type")
        if dtype == "text_delta" and kind == "text":
            self.e.text(str(delta.get("text", "")))
        elif dtype == "thinking_delta":
            self.e.reasoning(str(delta.get("thinking", "")))
        elif dtype == "input_json_delta" and kind == "tool":
            self.e.arguments(call, str(delta.get("partial_json", "")))
        # signature_delta, citations_delta, deltas of native-only blocks: dropped

    def _add_usage(self, usage: dict[str, Any]) -> None:
        for k, v in usage.items():
            if isinstance(v, int):
                self._usage[k] = v  # message_delta usage is cumulative

    def _set_usage(self) -> None:
        u = self._usage
        if not u:
            return
        cached = u.get("cache_read_input_tokens")
        prompt = (
            (u.get("input_tokens") or 0)
            + (cached or 0)
            + (u.get("cache_creation_input_tokens") or 0)
        )
        self.e.set_usage(prompt, u.get("output_tokens"), cached=cached)
