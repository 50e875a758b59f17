"""Chunks into Gemini's ``GenerateContentResponse`` stream (``streamGenerateContent?alt=sse``,
for Gemini CLI and google-genai), the fourth target of ``translate --to``.

The choices, each in one place:

=====================  =====================================================================
chunk stream           Gemini
=====================  =====================================================================
framing                ``data:`` lines, CRLF as Google writes them; no event names, no
                       terminator: the body ends after the last chunk
ids                    ``responseId`` the chunk id; ``modelVersion`` the chunk's model;
                       a call's ``id`` kept (Gemini's calls may carry one)
text / refusal         a text part of candidate 0, one chunk per delta
reasoning              a text part with ``thought: true``
state                  a ``reasoning_details`` signature or encrypted data: the
(``translate.state``)  ``thoughtSignature`` of the next call's part (Gemini signs the first
                       call after thinking), or of an empty text part at the end when no
                       call follows. Without state, none is made up (rule V008)
tool call              one ``functionCall`` part, whole (``name``, ``args`` an object,
                       ``id``), sent when the call's arguments are complete (the next call,
                       or the finish): Gemini never splits a call. Arguments that are not a
                       JSON object drop the call and finish ``MALFORMED_FUNCTION_CALL``, as
                       Gemini reports a call it could not make; cut by the token limit,
                       the call is dropped and the finish stays ``MAX_TOKENS``
finish                 ``stop`` and ``tool_calls`` -> ``STOP``, ``length`` -> ``MAX_TOKENS``,
                       ``content_filter`` -> ``SAFETY``, on the last chunk with the usage
usage                  ``promptTokenCount`` = prompt, ``cachedContentTokenCount`` = cached,
                       ``thoughtsTokenCount`` = reasoning, ``candidatesTokenCount`` =
                       completion - reasoning, ``totalTokenCount`` their sum
error frame            Google's error chunk ``{"error": {"code", "message", "status"}}`` (code
                       500 and ``INTERNAL`` unless the error gives an HTTP code); the stream
                       ends there
=====================  =====================================================================

Memory: the open calls' arguments until each is whole (Gemini's grammar needs them whole).
"""

from __future__ import annotations

import base64
from typing import Any

import orjson

from sseconform.translate.encode import Encoder, usage_counts
from sseconform.translate.state import value_of
from sseconform.wires.gemini import finish_reason

__all__ = ["GeminiEncoder"]

#: Google's ``status`` for an HTTP error code.
_STATUS = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
EOL = b"\r\n\r\n"


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int:
    return value if type(value) is int and value >= 0 else 0


class GeminiEncoder(Encoder):
    """Chunks to Gemini chunks: one candidate, text and thoughts as they come, each call whole."""

    def __init__(self) -> None:
        super().__init__()
        self.model = ""
        self.id = ""
        self.calls: dict[int, dict[str, Any]] = {}  # open calls by index: id, name, arguments
        self.signature: str | None = None  # state for the next call's part
        self.malformed = False

    def _stop_of(self, reason: str) -> str:
        return finish_reason(reason)

    def _chunk(self, parts: list[dict[str, Any]], extra: dict[str, Any] | None = None) -> bytes:
        candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}, "index": 0}
        if extra:
            candidate.update(extra.pop("candidate", {}))
        obj: dict[str, Any] = {"candidates": [candidate], **(extra or {})}
        if self.model:
            obj["modelVersion"] = self.model
        if self.id:
            obj["responseId"] = self.id
        return b"data: " + orjson.dumps(obj) + EOL

    def lane_writer(self, call: int) -> tuple[bytes, bytes, bool, bytearray | None] | None:
        """Text deltas as ``_chunk`` writes them, around their literal (a call's arguments
        wait for the call to be whole: the slow path's)."""
        if call >= 0 or self.ended or not self.started:
            return None
        tail = b'}],"role":"model"},"index":0}]'
        if self.model:
            tail += b',"modelVersion":' + orjson.dumps(self.model)
        if self.id:
            tail += b',"responseId":' + orjson.dumps(self.id)
        return b'data: {"candidates":[{"content":{"parts":[{"text":', tail + b"}" + EOL, False, None

    def _start(self, chunk: dict[str, Any]) -> list[bytes]:
        self.started = True
        self.model = _str(chunk.get("model"))
        self.id = _str(chunk.get("id"))
        return []

    def _delta(self, delta: dict[str, Any]) -> list[bytes]:
        out: list[bytes] = []
        reasoning = _str(delta.get("reasoning_content")) or _str(delta.get("reasoning"))
        if reasoning:
            out.append(self._chunk([{"text": reasoning, "thought": True}]))
        for entry in delta.get("reasoning_details") or []:
            carried = value_of(entry)
            if carried is not None:  # as base64, which google-genai requires of a signature
                self.signature = base64.b64encode(carried[1].encode()).decode()
        text = _str(delta.get("content")) + _str(delta.get("refusal"))
        if text:
            out.append(self._chunk([{"text": text}]))
        for call in delta.get("tool_calls") or []:
            if not isinstance(call, dict):
                continue
            at = _int(call.get("index"))
            fn = f if isinstance(f := call.get("function"), dict) else {}
            if at not in self.calls:
                parts = self._whole_calls()  # the calls before it are whole now
                if parts:
                    out.append(self._chunk(parts))
                self.calls[at] = {"id": _str(call.get("id")), "name": "", "arguments": []}
            open_call = self.calls[at]
            if _str(fn.get("name")):
                open_call["name"] = _str(fn.get("name"))
            if _str(fn.get("arguments")):
                open_call["arguments"].append(_str(fn.get("arguments")))
        return out

    def _whole_calls(self) -> list[dict[str, Any]]:
        """Every open call as one part each (the first after thinking with the signature),
        in index order; a call whose arguments are not a JSON object is dropped."""
        parts = []
        for _, call in sorted(self.calls.items()):
            raw = "".join(call["arguments"]) or "{}"
            try:
                args = orjson.loads(raw)
            except orjson.JSONDecodeError:
                args = None
            if not isinstance(args, dict) or not call["name"]:
                self.malformed = True
                continue
            fc: dict[str, Any] = {"name": call["name"], "args": args}
            if call["id"]:
                fc["id"] = call["id"]
            part: dict[str, Any] = {"functionCall": fc}
            if self.signature is not None:
                part["thoughtSignature"], self.signature = self.signature, None
            parts.append(part)
        self.calls.clear()
        return parts

    def _usage(self) -> dict[str, Any] | None:
        if self.usage is None:
            return None
        prompt, completion, cached, reasoning = usage_counts(self.usage)
        thoughts = min(reasoning, completion)
        usage = {
            "promptTokenCount": prompt,
            "candidatesTokenCount": completion - thoughts,
            "totalTokenCount": prompt + completion,
        }
        if thoughts:
            usage["thoughtsTokenCount"] = thoughts
        if cached:
            usage["cachedContentTokenCount"] = cached
        return usage

    def _end(self) -> list[bytes]:
        self.ended = True
        if not self.started:
            return []
        parts = self._whole_calls()
        if self.signature is not None:  # state with no call after it: on an empty text part
            parts.append({"text": "", "thoughtSignature": self.signature})
            self.signature = None
        reason = self.stop or "STOP"
        if self.malformed and reason != "MAX_TOKENS":  # a call cut by the limit is no fault
            reason = "MALFORMED_FUNCTION_CALL"
        extra: dict[str, Any] = {"candidate": {"finishReason": reason}}
        usage = self._usage()
        if usage is not None:
            extra["usageMetadata"] = usage
        return [self._chunk(parts or [{"text": ""}], extra)]

    def _error(self, error: Any) -> list[bytes]:
        err = error if isinstance(error, dict) else {"message": _str(error)}
        message = _str(err.get("message")) or "upstream error"
        code = err.get("code")
        status = err.get("status")
        http = code if type(code) is int and 400 <= code < 600 else 500
        body = {
            "code": http,
            "message": message,
            "status": status if isinstance(status, str) else _STATUS.get(http, "INTERNAL"),
        }
        self.ended = True
        return [b"data: " + orjson.dumps({"error": body}) + EOL]
