"""A recorded stream's meaning as its dialect's non-streaming answer.

A provider asked without ``stream`` (OpenAI chat, Anthropic Messages, Responses) or at
Gemini's ``:generateContent`` answers with one JSON object once it has finished generating.
replay builds that object from the same recording a streaming client would get, folded the way
the providers' own SDKs fold a stream into the final answer (openai-python's chat completion
snapshot, anthropic-sdk's accumulated message, the Responses terminal event's ``response``,
Gemini's candidates with their parts joined). So a gateway that calls its upstream without
streaming is graded on the same meaning as one that streams.

A stream that failed (an in-band error event, ``response.failed``) becomes the HTTP error the
provider would have answered with instead; one that never reached its terminal event has no
answer at all (the connection is dropped).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson

from sseconform import providers
from sseconform.model.partial import PartialJSON
from sseconform.model.reassemble import Reassembler
from sseconform.replay.faults import Faults
from sseconform.replay.plan import ABORT, END, WHOLE, Loaded, Plan, make_plan, reason_phrase
from sseconform.sse import SSEDecoder

__all__ = ["Whole", "anthropic_delta", "events", "fold", "json_or_empty", "whole_plan"]


@dataclass(frozen=True)
class Whole:
    """What a non-streaming request gets: an answer, an HTTP error, or nothing (a drop)."""

    status: int  # 200 for an answer; the error's status for a failure; 0 for no answer
    body: bytes = b""

    @property
    def answered(self) -> bool:
        return self.status != 0


_NO_ANSWER = Whole(0)
# the HTTP status a provider answers with for the failure its stream reported in-band
_ANTHROPIC_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


def whole_plan(rec: Loaded, *, speed: float = 1.0, faults: Faults | None = None) -> Plan:
    """The answer to a non-streaming request: the recording's meaning as one JSON object,
    sent when its stream would have ended (with a stall's wait added), under the same faults.

    A status fault refuses at once, as with a stream; a drop is the connection reset when
    the stream would have been cut, with nothing sent; an injected error event is the HTTP
    error the provider answers with when generation fails; ``truncate-last`` cuts the answer
    short (its length says more is coming) and drops the connection.
    """
    faults = faults or Faults()
    stream = make_plan(rec, speed=speed, faults=faults)
    if stream.json_body:
        return stream
    at = max((t for t, _, _ in stream.spans), default=stream.t_head)
    fires = ("stall",) if stream.stall_at is not None else ()
    headers = [(k, v) for k, v in stream.headers if k.lower() not in _STREAM_ONLY]
    headers.insert(0, ("content-type", "application/json"))

    def plan(status: int, reason: str, body: bytes, end: int, ending: str) -> Plan:
        spans = [(at, 0, end)] if end else []
        return Plan(status, reason, headers, at, body, spans, ending, form=WHOLE, fires=fires)

    if stream.ending == ABORT:
        dropped = plan(rec.status, rec.reason, b"", 0, ABORT)
        dropped.cut = stream.cut
        return dropped
    truncated = any(name == "truncate" for _, name in stream.marks)
    answer = fold(rec.dialect, rec.body if truncated else stream.body)
    if not answer.answered:  # the recording itself never finished: the provider dropped
        return plan(rec.status, rec.reason, b"", 0, ABORT)
    if answer.status != 200:
        failed = plan(
            answer.status, reason_phrase(answer.status), answer.body, len(answer.body), END
        )
        failed.headers = [("content-type", "application/json")]
        failed.headers += providers.error_headers(rec.dialect, answer.status)
        failed.json_body = True
        injected = any(name == "error" for _, name in stream.marks)
        failed.fires = (*fires, "error") if injected else fires
        return failed
    if truncated:
        cut = plan(rec.status, rec.reason, answer.body, max(1, len(answer.body) // 2), ABORT)
        cut.fires = (*fires, "truncate")
        return cut
    return plan(rec.status, rec.reason, answer.body, len(answer.body), END)


#: what describes a stream and not a JSON answer
_STREAM_ONLY = frozenset({"content-type", "content-length", "content-encoding", "cache-control"})


def fold(dialect: str | None, body: bytes) -> Whole:
    """The non-streaming answer a provider of ``dialect`` gives for this streamed body."""
    parsed = events(body)
    if dialect == providers.ANTHROPIC:
        return _anthropic(parsed)
    if dialect == providers.GEMINI:
        return _gemini(parsed)
    if dialect == providers.RESPONSES:
        return _responses(parsed)
    return _chat(parsed)


def events(body: bytes) -> list[tuple[str | None, Any]]:
    """Each dispatched event's name and parsed data (unparsable data is skipped: the answer
    is what a client could make of the stream, as the SDKs make it)."""
    dec = SSEDecoder()
    out: list[tuple[str | None, Any]] = []
    for ev in [*dec.feed(body), *dec.finish()]:
        try:
            data = orjson.loads(ev.data) if ev.data.strip() != "[DONE]" else "[DONE]"
        except orjson.JSONDecodeError:
            continue
        out.append((ev.event, data))
    return out


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False).encode()


def _error(dialect: str | None, err: Any) -> Whole:
    """The HTTP error that stands for an in-band one: the same error object, in the
    dialect's HTTP error body, with the status its type implies."""
    err = err if isinstance(err, dict) else {"message": str(err)}
    if dialect == providers.ANTHROPIC:
        status = _ANTHROPIC_STATUS.get(str(err.get("type")), 500)
        return Whole(status, _dumps({"type": "error", "error": err}))
    if dialect == providers.GEMINI:
        code = err.get("code")
        status = code if isinstance(code, int) and 400 <= code <= 599 else 500
        return Whole(status, _dumps({"error": err}))
    code = err.get("code")
    status = 429 if code == "rate_limit_exceeded" or err.get("type") == "requests" else 500
    shaped = {
        "message": err.get("message", ""),
        "type": err.get("type", "server_error"),
        "param": err.get("param"),
        "code": code,
    }
    return Whole(status, _dumps({"error": shaped}))


# -- OpenAI chat -----------------------------------------------------------------------------


def _chat(events: list[tuple[str | None, Any]]) -> Whole:
    r = Reassembler()
    first: dict[str, Any] = {}
    for _, data in events:
        if data == "[DONE]":
            r.feed_event("[DONE]")
        elif isinstance(data, dict):
            if not first and data.get("choices") and "error" not in data:
                first = data  # Azure's first chunk (prompt filters) has no choices, created 0
            r.feed_obj(data)
    if r.error is not None:
        return _error(providers.OPENAI, r.error)
    if not r.choices or not all(c.finish_reason for c in r.choices.values()):
        return _NO_ANSWER
    choices = []
    for c in sorted(r.choices.values(), key=lambda c: c.index):
        message: dict[str, Any] = {"role": c.role or "assistant", "content": c.text or None}
        if c.reasoning:
            message["reasoning_content"] = c.reasoning
        message["refusal"] = c.refusal or None
        if c.tool_calls:
            message["tool_calls"] = [
                {
                    "id": tc.id,
                    "type": tc.type or "function",
                    "function": {"name": tc.name, "arguments": tc.arguments},
                }
                for tc in sorted(c.tool_calls.values(), key=lambda t: t.index)
            ]
        choices.append(
            {
                "index": c.index,
                "message": message,
                "logprobs": None,
                "finish_reason": c.finish_reason,
            }
        )
    answer: dict[str, Any] = {
        "id": r.id,
        "object": "chat.completion",
        "created": first.get("created"),
        "model": r.model,
        "choices": choices,
    }
    if r.usage is not None:
        answer["usage"] = r.usage
    if "system_fingerprint" in first:
        answer["system_fingerprint"] = first["system_fingerprint"]
    return Whole(200, _dumps(answer))


# -- Anthropic Messages ----------------------------------------------------------------------


def _anthropic(events: list[tuple[str | None, Any]]) -> Whole:
    message: dict[str, Any] | None = None
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, list[str]] = {}
    for _, data in events:
        if not isinstance(data, dict):
            continue
        kind = data.get("type")
        if kind == "error":
            return _error(providers.ANTHROPIC, data.get("error"))
        if kind == "message_start" and isinstance(data.get("message"), dict):
            message = dict(data["message"])
            message["content"] = []
        elif kind == "content_block_start" and isinstance(data.get("content_block"), dict):
            blocks[data.get("index", len(blocks))] = dict(data["content_block"])
        elif kind == "content_block_delta" and isinstance(data.get("delta"), dict):
            block = blocks.get(data.get("index", -1))
            if block is not None:
                anthropic_delta(block, data["delta"], partial.setdefault(data["index"], []))
        elif kind == "message_delta" and message is not None:
            delta: dict[str, Any] = _dict(data.get("delta"))
            message.update(
                {k: v for k, v in delta.items() if k in ("stop_reason", "stop_sequence")}
            )
            if isinstance(data.get("usage"), dict):
                usage = dict(message.get("usage") or {})
                usage.update({k: v for k, v in data["usage"].items() if v is not None})
                message["usage"] = usage
        elif kind == "message_stop" and message is not None:
            for i in sorted(blocks):
                block = blocks[i]
                if block.get("type") in ("tool_use", "server_tool_use") and i in partial:
                    block["input"] = json_or_empty("".join(partial[i]))
                message["content"].append(block)
            return Whole(200, _dumps(message))
    return _NO_ANSWER


def anthropic_delta(block: dict[str, Any], delta: dict[str, Any], partial: list[str]) -> None:
    """One block delta folded in, as anthropic-sdk's message accumulator folds it."""
    kind = delta.get("type")
    if kind == "text_delta":
        block["text"] = block.get("text", "") + str(delta.get("text", ""))
    elif kind == "thinking_delta":
        block["thinking"] = block.get("thinking", "") + str(delta.get("thinking", ""))
    elif kind == "signature_delta":
        block["signature"] = str(delta.get("signature", ""))
    elif kind == "input_json_delta":
        partial.append(str(delta.get("partial_json", "")))
    elif kind == "citations_delta" and "citation" in delta:
        block.setdefault("citations", []).append(delta["citation"])


def json_or_empty(text: str) -> Any:
    """A tool call's input: its JSON, or what partial-JSON reading makes of JSON cut short (a
    ``max_tokens`` stop can end a call mid-value), as anthropic-sdk reads it."""
    if not text.strip():
        return {}
    try:
        return json.loads(text)
    except ValueError:
        partial = PartialJSON()
        partial.feed(_without_open_string(text))
        value = partial.value()
        return value if isinstance(value, dict) else {}


def _without_open_string(text: str) -> str:
    """The text without a string it leaves open: an unfinished string value is left out,
    as anthropic-sdk's partial reading (jiter, no trailing strings) leaves it out."""
    start, inside, escaped = 0, False, False
    for i, ch in enumerate(text):
        if escaped:
            escaped = False
        elif inside and ch == "\\":
            escaped = True
        elif ch == '"':
            inside = not inside
            start = i
    return text[:start] if inside else text


# -- Gemini ----------------------------------------------------------------------------------


def _gemini(events: list[tuple[str | None, Any]]) -> Whole:
    answer: dict[str, Any] = {}
    candidates: dict[int, dict[str, Any]] = {}
    finished = False
    for _, data in events:
        if not isinstance(data, dict):
            continue
        if "error" in data:
            return _error(providers.GEMINI, data["error"])
        for key in ("usageMetadata", "promptFeedback"):
            if key in data:
                answer[key] = data[key]
        for key in ("modelVersion", "responseId"):
            if key in data and key not in answer:
                answer[key] = data[key]
        if isinstance(data.get("promptFeedback"), dict) and data["promptFeedback"].get(
            "blockReason"
        ):
            finished = True
        for cand in data.get("candidates") or []:
            if not isinstance(cand, dict):
                continue
            index = cand.get("index", 0)
            merged = candidates.setdefault(
                index, {"content": {"parts": [], "role": "model"}, "index": index}
            )
            content = _dict(cand.get("content"))
            if "role" in content:
                merged["content"]["role"] = content["role"]
            for part in content.get("parts") or []:
                if isinstance(part, dict):
                    _gemini_part(merged["content"]["parts"], part)
            for key, value in cand.items():
                if key not in ("content", "index"):
                    merged[key] = value
            finished = finished or bool(cand.get("finishReason"))
    if not finished:
        return _NO_ANSWER
    answer = {"candidates": [candidates[i] for i in sorted(candidates)], **answer}
    return Whole(200, _dumps(answer))


def _gemini_part(parts: list[dict[str, Any]], part: dict[str, Any]) -> None:
    """A streamed part joined to the one before when both are plain text of the same kind
    (answer or thought), as the whole answer holds one text part where the stream had many."""
    last = parts[-1] if parts else None
    text_only = set(part) <= {"text", "thought", "thoughtSignature"} and "text" in part
    if (
        last is not None
        and text_only
        and set(last) <= {"text", "thought", "thoughtSignature"}
        and "text" in last
        and bool(last.get("thought")) == bool(part.get("thought"))
        and "thoughtSignature" not in last
    ):
        last["text"] = str(last["text"]) + str(part["text"])
        if "thoughtSignature" in part:
            last["thoughtSignature"] = part["thoughtSignature"]
        return
    parts.append(dict(part))


# -- Responses -------------------------------------------------------------------------------


def _responses(events: list[tuple[str | None, Any]]) -> Whole:
    for _, data in events:
        if not isinstance(data, dict):
            continue
        kind = data.get("type")
        if kind == "error":
            err = {k: data.get(k) for k in ("message", "code", "param")}
            return _error(providers.RESPONSES, {**err, "type": "server_error"})
        if kind == "response.failed":
            response = _dict(data.get("response"))
            return _error(providers.RESPONSES, response.get("error") or {"message": "failed"})
        if kind in ("response.completed", "response.incomplete") and isinstance(
            data.get("response"), dict
        ):
            return Whole(200, _dumps(data["response"]))
    return _NO_ANSWER
