"""Chunks into the other grammars a gateway serves: Anthropic Messages events (``/v1/messages``,
for Claude Code and the Anthropic SDKs) and Responses events (``/v1/responses``, for Codex
and the Agents SDK).

Every input dialect is first read into ``chat.completion.chunk`` frames by its reference
translator (``translator_for``), so one encoder per target serves every source; a source of
the target's own grammar is passed through unchanged instead (``translate_body``), which
keeps what chunks cannot carry (thinking signatures, hosted tools, citations).

The choices a translator into these grammars must make, each in one place:

=====================  ========================================  =================================
chunk stream           Anthropic Messages                        Responses
=====================  ========================================  =================================
ids                    ``msg_`` + the chunk id (kept if it       ``resp_`` + the chunk id; items
                       starts ``msg_``); tool ids kept            ``rs_``/``msg_``/``fc_`` + it +
                                                                  the output index; call_id kept
reasoning              a ``thinking`` block                       a ``reasoning`` item with one
                                                                  ``summary_text`` part
state                  a ``reasoning_details`` signature or       a ``reasoning_details`` entry's
(``translate.state``)  encrypted data: the thinking block's       value: the reasoning item's
                       ``signature_delta`` (a thinking block      ``encrypted_content`` (a
                       opened for it if none is); Anthropic's     reasoning item opened for it if
                       redacted data: a ``redacted_thinking``     none is). Without state, none
                       block. Without state, no signature (none   is made up
                       can be made up; rule A012, a warning)
text / refusal         a ``text`` block                           a ``message`` item, an
                                                                  ``output_text`` / ``refusal`` part
tool call              a ``tool_use`` block, input {} then        a ``function_call`` item,
                       ``input_json_delta`` per fragment          arguments deltas then ``.done``
``stop``               ``end_turn``                               ``response.completed``
``length``             ``max_tokens``                             ``response.incomplete``,
                                                                  ``max_output_tokens``
``tool_calls``         ``tool_use``                               ``response.completed``
``content_filter``     ``refusal``                                ``response.incomplete``,
                                                                  ``content_filter``
usage                  ``message_delta`` usage: input_tokens =    input_tokens (cached within,
                       prompt - cached, cache_read_input_tokens   ``input_tokens_details``),
                       = cached, output_tokens = completion       output_tokens (reasoning
                       (zeros in ``message_start``: chunks give   within, ``output_tokens_details``)
                       usage only at the end)
error frame            ``event: error`` with ``{"type":"error",   an ``error`` event, then
                       "error":{"type","message"}}``; the         ``response.failed`` with the
                       stream ends there (no ``message_stop``)    error and the output so far
=====================  ========================================  =================================

Memory: an Anthropic encoder keeps the open block only. A Responses encoder must repeat every
item's whole text in its ``.done`` events and in the terminal response's ``output`` (the
grammar says so), so it keeps the output's strings until the end: what the grammar costs.
"""

from __future__ import annotations

from typing import Any

import orjson

from sseconform.translate.base import DELTA_SUFFIX, DONE, Frame, serialize
from sseconform.translate.lane import Unnumbered
from sseconform.translate.state import value_of
from sseconform.wires.messages import stop_reason
from sseconform.wires.responses import status_of

__all__ = [
    "AnthropicEncoder",
    "ChatWriter",
    "Encoder",
    "ResponsesEncoder",
]


def _event(name: str, obj: dict[str, Any]) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n"


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


def usage_counts(u: dict[str, Any]) -> tuple[int, int, int, int]:
    """A chunk usage's prompt, completion, cached and reasoning counts (OpenAI's definition:
    cached within prompt, reasoning within completion); 0 for what it lacks."""
    pd, cd = u.get("prompt_tokens_details"), u.get("completion_tokens_details")
    return (
        _int(u.get("prompt_tokens")),
        _int(u.get("completion_tokens")),
        _int(pd.get("cached_tokens")) if isinstance(pd, dict) else 0,
        _int(cd.get("reasoning_tokens")) if isinstance(cd, dict) else 0,
    )


class Encoder(Unnumbered):
    """Chunk frames in (dicts, error frames, ``[DONE]``), the target's SSE bytes out. The
    walk over a frame is shared; a target says how a stream starts, what a delta becomes,
    how it ends and fails, and what a finish reason is called."""

    def __init__(self) -> None:
        self.started = False
        self.ended = False
        self.stop: str | None = None
        self.usage: dict[str, Any] | None = None

    def feed(self, frame: Frame) -> list[bytes]:
        if self.ended:
            return []
        if frame == DONE:
            return self._end()
        if not isinstance(frame, dict):
            return []
        if frame.get("error"):  # any truthy error ends the stream, choices or not
            return self._error(frame["error"])
        out = [] if self.started else self._start(frame)
        if isinstance(frame.get("usage"), dict):
            self.usage = frame["usage"]
        for choice in frame.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue  # these grammars hold one answer: the first choice
            out += self._delta(_dict(choice.get("delta")))
            reason = choice.get("finish_reason")
            if isinstance(reason, str):
                self.stop = self._stop_of(reason)
        return out

    def finish(self) -> list[bytes]:
        if self.ended or not self.started:
            return []
        return self._end()

    def lane_writer(self, call: int) -> tuple[bytes, bytes, bool, bytearray | None] | None:
        """How the fast lane writes deltas of ``call`` (-1: text) while its block or item
        is the open one (``sseconform.translate.lane``); None: the slow path."""
        return None

    def _start(self, chunk: dict[str, Any]) -> list[bytes]:
        raise NotImplementedError

    def _delta(self, delta: dict[str, Any]) -> list[bytes]:
        raise NotImplementedError

    def _end(self) -> list[bytes]:
        raise NotImplementedError

    def _error(self, error: Any) -> list[bytes]:
        raise NotImplementedError

    def _stop_of(self, reason: str) -> str:
        return reason


class AnthropicEncoder(Encoder):
    """Chunks to Anthropic Messages events: one block open at a time, in index order."""

    def __init__(self) -> None:
        super().__init__()
        self.block: tuple[str, int] | None = None  # (kind, tool call index or -1)
        self.index = -1  # the open (or last) block's index
        self.redacted = 0  # redacted_thinking blocks opened (each a block of its own)
        self.id = "msg_sseconform"
        self.model = ""

    def _stop_of(self, reason: str) -> str:
        return stop_reason(reason)

    def _start(self, chunk: dict[str, Any]) -> list[bytes]:
        self.started = True
        cid = _str(chunk.get("id"))
        self.id = cid if cid.startswith("msg_") else f"msg_{cid or 'sseconform'}"
        self.model = _str(chunk.get("model"))
        message: dict[str, Any] = {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }
        return [_event("message_start", {"type": "message_start", "message": message})]

    def _delta(self, delta: dict[str, Any]) -> list[bytes]:
        out: list[bytes] = []
        reasoning = _str(delta.get("reasoning_content")) or _str(delta.get("reasoning"))
        if reasoning:
            out += self._open("thinking", -1, {"type": "thinking", "thinking": ""})
            out += self._piece({"type": "thinking_delta", "thinking": reasoning})
        for entry in delta.get("reasoning_details") or []:
            carried = value_of(entry)
            if carried is None:
                continue
            kind, value = carried
            if kind == "redacted":
                self.redacted += 1
                out += self._open("redacted", self.redacted, {"type": "redacted_thinking",
                                                              "data": value})  # fmt: skip
                continue
            if self.block != ("thinking", -1):  # state with no thinking before it
                out += self._open("thinking", -1, {"type": "thinking", "thinking": ""})
            out += self._piece({"type": "signature_delta", "signature": value})
        text = _str(delta.get("content")) + _str(delta.get("refusal"))
        if text:
            out += self._open("text", -1, {"type": "text", "text": ""})
            out += self._piece({"type": "text_delta", "text": text})
        for call in delta.get("tool_calls") or []:
            if not isinstance(call, dict):
                continue
            fn = _dict(call.get("function"))
            at = _int(call.get("index"))
            if self.block != ("tool_use", at):
                cid = _str(call.get("id")) or f"toolu_{self.id}_{at}"
                block = {"type": "tool_use", "id": cid, "name": _str(fn.get("name")), "input": {}}
                out += self._open("tool_use", at, block)
            args = _str(fn.get("arguments"))
            if args:
                out += self._piece({"type": "input_json_delta", "partial_json": args})
        return out

    def lane_writer(self, call: int) -> tuple[bytes, bytes, bool, bytearray | None] | None:
        """Deltas as ``_piece`` writes them, around their literal."""
        if self.ended or self.block != (("text", -1) if call < 0 else ("tool_use", call)):
            return None
        kind, key = (b"text_delta", b"text") if call < 0 else (b"input_json_delta", b"partial_json")
        head = (
            b'event: content_block_delta\ndata: {"type":"content_block_delta","index":%d,'
            b'"delta":{"type":"%b","%b":' % (self.index, kind, key)
        )
        return head, b"}}\n\n", False, None

    def _open(self, kind: str, call: int, block: dict[str, Any]) -> list[bytes]:
        if self.block == (kind, call):
            return []
        out = self._close()
        self.index += 1
        self.block = (kind, call)
        start = {"type": "content_block_start", "index": self.index, "content_block": block}
        return [*out, _event("content_block_start", start)]

    def _piece(self, delta: dict[str, Any]) -> list[bytes]:
        obj = {"type": "content_block_delta", "index": self.index, "delta": delta}
        return [_event("content_block_delta", obj)]

    def _close(self) -> list[bytes]:
        if self.block is None:
            return []
        self.block = None
        stop = {"type": "content_block_stop", "index": self.index}
        return [_event("content_block_stop", stop)]

    def _end(self) -> list[bytes]:
        if not self.started:
            self.ended = True
            return []
        out = self._close()
        u = self.usage or {}
        details = u.get("prompt_tokens_details")
        cached = _int(details.get("cached_tokens")) if isinstance(details, dict) else 0
        usage = {
            "input_tokens": max(_int(u.get("prompt_tokens")) - cached, 0),
            "output_tokens": _int(u.get("completion_tokens")),
        }
        if cached:
            usage["cache_read_input_tokens"] = cached
        delta = {"stop_reason": self.stop or "end_turn", "stop_sequence": None}
        out.append(
            _event("message_delta", {"type": "message_delta", "delta": delta, "usage": usage})
        )
        out.append(_event("message_stop", {"type": "message_stop"}))
        self.ended = True
        return out

    def _error(self, error: Any) -> list[bytes]:
        err = error if isinstance(error, dict) else {"message": _str(error)}
        kind = _str(err.get("type"))
        message = _str(err.get("message")) or "upstream error"
        body = {"type": kind if kind.endswith("_error") else "api_error", "message": message}
        self.ended = True
        return [_event("error", {"type": "error", "error": body})]


class ResponsesEncoder(Encoder):
    """Chunks to Responses events: items added, streamed, done, in output order; one
    terminal event whose output is what was streamed."""

    def __init__(self) -> None:
        super().__init__()
        self.seq = 0
        self.response: dict[str, Any] = {}
        self.output: list[dict[str, Any]] = []  # the items done so far (the terminal's output)
        self.item: dict[str, Any] | None = None  # the open item
        self.kind: tuple[str, int] | None = None  # (kind, tool call index or -1)
        #: what the open item's deltas built: their JSON string literals' insides, one after
        #: the other (together one literal, decoded once at the item's end; no object per
        #: delta, so a long answer costs about its own size here)
        self.pieces = bytearray()
        self.stem = "sseconform"

    def _ev(self, kind: str, fields: dict[str, Any]) -> bytes:
        obj = {"type": kind, **fields, "sequence_number": self.seq}
        self.seq += 1
        return _event(kind, obj)

    def _start(self, chunk: dict[str, Any]) -> list[bytes]:
        self.started = True
        cid = _str(chunk.get("id")) or "sseconform"
        self.stem = cid.removeprefix("resp_").removeprefix("chatcmpl-")
        created = chunk.get("created")
        self.response = {
            "id": cid if cid.startswith("resp_") else f"resp_{self.stem}",
            "object": "response",
            "created_at": created if type(created) is int else 0,
            "status": "in_progress",
            "error": None,
            "incomplete_details": None,
            "model": _str(chunk.get("model")),
            "output": [],
            "usage": None,
        }
        return [
            self._ev("response.created", {"response": self.response}),
            self._ev("response.in_progress", {"response": self.response}),
        ]

    def _delta(self, delta: dict[str, Any]) -> list[bytes]:
        out: list[bytes] = []
        reasoning = _str(delta.get("reasoning_content")) or _str(delta.get("reasoning"))
        if reasoning:
            out += self._open("reasoning", -1, {"type": "reasoning", "summary": []})
            out.append(self._stream("response.reasoning_summary_text.delta", reasoning))
        for entry in delta.get("reasoning_details") or []:
            carried = value_of(entry)
            if carried is None:
                continue
            if self.kind != ("reasoning", -1) or "encrypted_content" in (self.item or {}):
                out += self._close()
                out += self._open("reasoning", -1, {"type": "reasoning", "summary": []})
            assert self.item is not None
            self.item["encrypted_content"] = carried[1]
        for kind, key in (("output_text", "content"), ("refusal", "refusal")):
            text = _str(delta.get(key))
            if text:
                item = {"type": "message", "status": "in_progress", "role": "assistant"}
                out += self._open(kind, -1, {**item, "content": []})
                out.append(self._stream(f"response.{kind}.delta", text))
        for call in delta.get("tool_calls") or []:
            if not isinstance(call, dict):
                continue
            fn = _dict(call.get("function"))
            at = _int(call.get("index"))
            if self.kind != ("function_call", at):
                item = {
                    "type": "function_call",
                    "status": "in_progress",
                    "arguments": "",
                    "call_id": _str(call.get("id")) or f"call_{self.stem}_{at}",
                    "name": _str(fn.get("name")),
                }
                out += self._open("function_call", at, item)
            args = _str(fn.get("arguments"))
            if args:
                out.append(self._stream("response.function_call_arguments.delta", args))
        return out

    def _where(self) -> dict[str, Any]:
        assert self.item is not None
        where: dict[str, Any] = {"item_id": self.item["id"], "output_index": len(self.output)}
        if self.kind is not None and self.kind[0] in ("output_text", "refusal"):
            where["content_index"] = 0
        elif self.kind is not None and self.kind[0] == "reasoning":
            where["summary_index"] = 0
        return where

    def _stream(self, kind: str, piece: str) -> bytes:
        self.pieces += orjson.dumps(piece)[1:-1]
        fields = {**self._where(), "delta": piece}
        if kind == "response.output_text.delta":
            fields["logprobs"] = []
        return self._ev(kind, fields)

    def lane_writer(self, call: int) -> tuple[bytes, bytes, bool, bytearray | None] | None:
        """Deltas as ``_stream`` writes them, around their literal; the literals go to the
        item's pieces (its ``.done`` events repeat the whole text)."""
        if self.ended or self.kind != (
            ("output_text", -1) if call < 0 else ("function_call", call)
        ):
            return None
        name = (
            "response.output_text.delta" if call < 0 else "response.function_call_arguments.delta"
        )
        fields = orjson.dumps({"type": name, **self._where()})[:-1]
        head = b"event: " + name.encode() + b"\ndata: " + fields + b',"delta":'
        tail = b',"logprobs":[],' if call < 0 else b","
        return head, tail + b'"sequence_number":%d}\n\n', True, self.pieces

    def lane_next(self) -> int:
        return self.seq

    def lane_set_next(self, n: int) -> None:
        self.seq = n

    def _text(self) -> orjson.Fragment:
        """The open item's text as the JSON string literal its pieces make together (each
        piece is orjson's own escaping of its string, so the whole is orjson's escaping of
        the whole): written as it is, never decoded into a string and encoded again."""
        return orjson.Fragment(b'"' + self.pieces + b'"')

    def _open(self, kind: str, call: int, item: dict[str, Any]) -> list[bytes]:
        if self.kind == (kind, call):
            return []
        out = self._close()
        prefix = {"reasoning": "rs", "function_call": "fc"}.get(kind, "msg")
        self.item = {"id": f"{prefix}_{self.stem}_{len(self.output)}", **item}
        self.kind = (kind, call)
        self.pieces = bytearray()
        added = {"output_index": len(self.output), "item": self.item}
        out.append(self._ev("response.output_item.added", added))
        if kind == "reasoning":
            part = {"type": "summary_text", "text": ""}
            out.append(
                self._ev("response.reasoning_summary_part.added", {**self._where(), "part": part})
            )
        elif kind in ("output_text", "refusal"):
            part = self._part(kind, "")
            out.append(self._ev("response.content_part.added", {**self._where(), "part": part}))
        return out

    @staticmethod
    def _part(kind: str, text: str | orjson.Fragment) -> dict[str, Any]:
        if kind == "refusal":
            return {"type": "refusal", "refusal": text}
        return {"type": "output_text", "text": text, "annotations": [], "logprobs": []}

    def _close(self, status: str = "completed") -> list[bytes]:
        if self.item is None or self.kind is None:
            return []
        kind, where, text = self.kind[0], self._where(), self._text()
        out: list[bytes] = []
        done = dict(self.item)
        if kind == "reasoning":
            part = {"type": "summary_text", "text": text}
            out.append(self._ev("response.reasoning_summary_text.done", {**where, "text": text}))
            out.append(self._ev("response.reasoning_summary_part.done", {**where, "part": part}))
            done["summary"] = [part]
        elif kind in ("output_text", "refusal"):
            part = self._part(kind, text)
            key = "text" if kind == "output_text" else "refusal"
            fields = {**where, key: text}
            if kind == "output_text":
                fields["logprobs"] = []
            out.append(self._ev(f"response.{kind}.done", fields))
            out.append(self._ev("response.content_part.done", {**where, "part": part}))
            done["status"], done["content"] = status, [part]
        else:
            out.append(
                self._ev("response.function_call_arguments.done", {**where, "arguments": text})
            )
            done["status"], done["arguments"] = status, text
        out.append(
            self._ev(
                "response.output_item.done", {"output_index": where["output_index"], "item": done}
            )
        )
        self.output.append(done)
        self.item, self.kind, self.pieces = None, None, bytearray()
        return out

    def _open_item(self) -> list[dict[str, Any]]:
        """The item the stream was building when it failed, as far as it got (the failed
        response's output holds it too, unfinished)."""
        if self.item is None or self.kind is None:
            return []
        kind, item, text = self.kind[0], dict(self.item), self._text()
        if kind == "reasoning":
            item["summary"] = [{"type": "summary_text", "text": text}]
        elif kind in ("output_text", "refusal"):
            item["status"], item["content"] = "incomplete", [self._part(kind, text)]
        else:
            item["status"], item["arguments"] = "incomplete", text
        return [item]

    def _usage(self) -> dict[str, Any] | None:
        if self.usage is None:
            return None
        prompt, completion, cached, reasoning = usage_counts(self.usage)
        return {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": cached},
            "output_tokens": completion,
            "output_tokens_details": {"reasoning_tokens": reasoning},
            "total_tokens": prompt + completion,
        }

    def _end(self) -> list[bytes]:
        if not self.started:
            self.ended = True
            return []
        status, reason = status_of(self.stop)
        out = self._close(status)
        final = {**self.response, "output": self.output, "usage": self._usage()}
        if reason is not None:
            final["status"], final["incomplete_details"] = status, {"reason": reason}
            out.append(self._ev("response.incomplete", {"response": final}))
        else:
            final["status"] = "completed"
            out.append(self._ev("response.completed", {"response": final}))
        self.ended = True
        return out

    def _error(self, error: Any) -> list[bytes]:
        err = error if isinstance(error, dict) else {"message": _str(error)}
        message = _str(err.get("message")) or "upstream error"
        code = err.get("code")
        code = code if isinstance(code, str) else _str(err.get("type")) or "server_error"
        out: list[bytes] = []
        if not self.started:
            out += self._start({})
        out.append(self._ev("error", {"code": code, "message": message, "param": None}))
        failed = {
            **self.response,
            "status": "failed",
            "error": {"code": code, "message": message},
            "output": [*self.output, *self._open_item()],
        }
        out.append(self._ev("response.failed", {"response": failed}))
        self.ended = True
        return out


class ChatWriter(Unnumbered):
    """Chunk frames written as they are (``translate --to chat``), with what the fast lane
    needs: the bytes every delta of the stream starts with (its id, created and model, fixed
    once a chunk went out, so taken from the last chunk written)."""

    def __init__(self) -> None:
        self.ended = False
        self._last: dict[str, Any] | None = None  # the last chunk written

    def feed(self, frame: Frame) -> list[bytes]:
        if frame == DONE or (type(frame) is dict and "error" in frame):
            self.ended = True
        elif type(frame) is dict and frame.get("choices"):
            self._last = frame  # its head is written only when the lane asks for it
        return [serialize(frame)]

    def finish(self) -> list[bytes]:
        return []

    def lane_writer(self, call: int) -> tuple[bytes, bytes, bool, bytearray | None] | None:
        """Deltas of choice 0 as the Emitter writes them, around their literal."""
        if self.ended or self._last is None:
            return None
        fields = {k: self._last.get(k) for k in ("id", "object", "created", "model")}
        start = b"data: " + orjson.dumps(fields)[:-1] + b',"choices":[{"index":0,"delta":'
        if call < 0:
            return start + b'{"content":', b"}" + DELTA_SUFFIX, False, None
        head = start + b'{"tool_calls":[{"index":%d,"function":{"arguments":' % call
        return head, b"}}]}" + DELTA_SUFFIX, False, None
