"""Anthropic Messages events -> chat chunks.

Block indexes count every block (text, thinking, tool_use, server tools), so they are not
tool-call indexes: function calls get the next dense index as their ``tool_use`` block starts.
Thinking streams as ``reasoning_content``; a thinking block's signature and a redacted
thinking block's data as ``reasoning_details`` entries (:mod:`.state`: the client must send
them back); server-tool blocks and citations have no place in the chunk grammar and are
dropped. ``ping`` is ignored;
``error`` becomes an error frame then [DONE]; a stream that stops before ``message_stop``
ends with an error frame rather than a silent close.
"""

from __future__ import annotations

from typing import Any

from sseconform import providers
from sseconform.sse import Event
from sseconform.sse.template import Template, cut
from sseconform.translate.base import DELTA_SUFFIX, MALFORMED, Emitter, Frame, Guarded, loads
from sseconform.translate.lane import JSON, Candidate, Unnumbered
from sseconform.translate.state import ANTHROPIC, encrypted, signature

FINISH = providers.ANTHROPIC_FINISH


class AnthropicTranslator(Guarded, Unnumbered):
    dialect = "anthropic"

    def __init__(self, emitter: Emitter) -> None:
        self.e = emitter
        self._blocks: dict[int, tuple[str, int]] = {}  # block index -> (kind, call index)
        self._finish: str | None = None
        self._usage: dict[str, Any] = {}
        self._started = False
        self._stopped = False
        # A delta event already parsed, cut around its text/partial_json literal: a later
        # event equal to it but for that literal is the same delta with another string.
        self._tmpl: _DeltaTemplate | None = None
        self._args_sent: set[int] = set()  # calls that got a non-empty arguments fragment
        #: the last event, when it was a plain text or arguments delta: (event, object, key,
        #: call), for ``translate --to``'s fast lane (``lane_candidate``)
        self._lane: tuple[Event, dict[str, Any], str, int] | None = None

    def feed(self, ev: Event) -> list[Frame]:
        self._lane = None
        try:
            t = self._tmpl
            if t is not None:
                got = t.cut.fits(ev.data)  # the byte lane's reading of a decoded event
                if got is not None:
                    literal = got[0]
                    if "\\" not in literal:
                        # No escape: the literal is the very bytes orjson would write. The emitter
                        # holds nothing between events, so the one frame goes straight out.
                        if len(literal) > 2:
                            return [t.out_head + literal.encode() + t.out_tail]
                        return []
                    value = loads(literal)
                    if t.call < 0:
                        self.e.text(value)
                    else:
                        self.e.arguments(t.call, value)
                    return self.e.take()
                self._tmpl = None
            return self._parse(ev)
        except MALFORMED as exc:  # a malformed upstream: the grammar's error frame
            return self.e.malformed(f"event {ev.frame}", exc)

    def _parse(self, ev: Event) -> list[Frame]:
        """An event the template does not fit (or none is known), parsed whole."""
        obj = loads(ev.data)
        if type(obj) is not dict or self.e.closed:
            return self.e.take()
        kind = obj.get("type") or ev.event
        if kind == "content_block_delta":  # nearly every event: the shortest way through
            out = self._plain_delta(ev, obj)
            if out is not None:
                return out
            self._block_delta(obj)
        elif kind == "message_start":
            self._message_start(obj.get("message") or {})
        elif kind == "content_block_start":
            self._block_start(obj)
        elif kind == "content_block_stop":
            self._block_stop(obj)
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

    def _plain_delta(self, ev: Event, obj: dict[str, Any]) -> list[Frame] | None:
        """A text or arguments delta of an open block, which a template can repeat; None:
        another delta (``_block_delta`` reads it)."""
        delta = obj.get("delta")
        block = self._blocks.get(obj.get("index", -1))
        if type(delta) is not dict or block is None:
            return None
        dtype = delta.get("type")
        value = delta.get("text") if dtype == "text_delta" else delta.get("partial_json")
        if type(value) is not str:
            return None
        if dtype == "text_delta" and block[0] == "text":
            self.e.text(value)
            self._lane = (ev, obj, "text", -1)
            if self.e.raw:
                self._tmpl = _template(ev.data, obj, "text", -1, self.e)
            return self.e.take()
        if dtype == "input_json_delta" and block[0] == "tool" and value:
            self._args_sent.add(block[1])
            self.e.arguments(block[1], value)
            self._lane = (ev, obj, "partial_json", block[1])
            if self.e.raw:
                self._tmpl = _template(ev.data, obj, "partial_json", block[1], self.e)
            return self.e.take()
        return None

    def _end_of_stream(self) -> list[Frame]:
        if not self.e.closed:
            self.e.ended_early("before message_stop")
        return self.e.take()

    # -- translate --to's fast lane (sseconform.translate.lane) ------------------------------

    def lane_candidate(self) -> Candidate | None:
        """The last event, to be cut around its delta string, if it was a plain delta. A block's
        index keeps its kind for the stream (a repeated start is ignored) and a call in it
        has its arguments already, so an event equal but for the string is the same delta
        of the same block, with nothing else to record."""
        if self._lane is None or self.e.closed:
            return None
        ev, obj, key, call = self._lane
        return Candidate(ev, obj, ("delta", key), call)

    def _message_start(self, msg: dict[str, Any]) -> None:
        if self._started:
            if not self._blocks:
                return  # a repeated start before any content: nothing was half sent
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
        if index in self._blocks:
            return  # the same block started again: it is open already (one call, not two)
        if btype == "tool_use":
            call = self.e.call(str(block.get("id") or ""), str(block.get("name") or ""))
            self._blocks[index] = ("tool", call)
            if block.get("input"):
                import json

                self._args_sent.add(call)
                self.e.arguments(call, json.dumps(block["input"]))
        elif btype == "text":
            self._blocks[index] = ("text", -1)
            self.e.text(str(block.get("text") or ""))
        elif btype == "thinking":
            self._blocks[index] = ("thinking", -1)
            self.e.reasoning(str(block.get("thinking") or ""))
            sig = block.get("signature")
            if isinstance(sig, str) and sig:
                self.e.state(signature(sig), key=index)
        elif btype == "redacted_thinking":
            self._blocks[index] = ("native", -1)
            data = block.get("data")
            if isinstance(data, str) and data:
                self.e.state(encrypted(data, ANTHROPIC))
        else:  # server_tool_use, web_search_tool_result, ...: native only
            self._blocks[index] = ("native", -1)

    def _block_stop(self, obj: dict[str, Any]) -> None:
        """A call whose input never streamed (``input: {}``, an empty partial_json) gets
        ``{}``: its arguments must parse as JSON."""
        kind, call = self._blocks.get(obj.get("index", -1), ("text", -1))
        if kind == "tool" and call not in self._args_sent:
            self._args_sent.add(call)
            self.e.arguments(call, "{}")

    def _block_delta(self, obj: dict[str, Any]) -> None:
        delta = obj.get("delta") or {}
        kind, call = self._blocks.get(obj.get("index", -1), ("text", -1))
        dtype = delta.get("type")
        if dtype == "text_delta" and kind == "text":
            self.e.text(str(delta.get("text", "")))
        elif dtype == "thinking_delta":
            self.e.reasoning(str(delta.get("thinking", "")))
        elif dtype == "input_json_delta" and kind == "tool":
            fragment = str(delta.get("partial_json", ""))
            if fragment:
                self._args_sent.add(call)
            self.e.arguments(call, fragment)
        elif dtype == "signature_delta" and kind == "thinking":
            sig = delta.get("signature")
            if isinstance(sig, str) and sig:
                self.e.state(signature(sig), key=obj.get("index"))
        # citations_delta, deltas of native-only blocks: dropped

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


class _DeltaTemplate:
    """A delta event cut around its literal, and the output bytes around the same literal."""

    __slots__ = ("call", "cut", "out_head", "out_tail")

    def __init__(self, cut: Template, call: int, out_head: bytes, out_tail: bytes):
        self.cut = cut
        self.call = call  # -1: delta.text (content); else the call whose arguments these are
        self.out_head = out_head
        self.out_tail = out_tail


def _template(
    data: str, obj: dict[str, Any], key: str, call: int, e: Emitter
) -> _DeltaTemplate | None:
    """Cut ``data`` around its ``key`` literal, proven by a probe parse (the byte lane's cut,
    ``sse/template.py``); None if unproven."""
    found = cut(data, obj, ("delta", key), JSON)
    if found is None or len(found.holes) != 1:
        return None
    t = Template(found, JSON)
    head = e.delta_prefix(0)
    if call < 0:
        return _DeltaTemplate(t, call, head + b'{"content":', b"}" + DELTA_SUFFIX)
    out_head = head + b'{"tool_calls":[{"index":%d,"function":{"arguments":' % call
    return _DeltaTemplate(t, call, out_head, b"}}]}" + DELTA_SUFFIX)
