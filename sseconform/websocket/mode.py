"""The Responses API's WebSocket mode: the pure pieces every side that serves it shares.

Replay's WebSocket upstream and the demo gateway both answer ``GET /v1/responses`` with
``Upgrade: websocket``, read ``response.create`` messages and write the mode's own events.
What those look like is said once, here, below both: the handshake's checks (RFC 6455 4.2.1)
and its accept token, a client message read as a ``response.create``, the nested ``error``
event (``{"type": "error", "status": N, "error": {...}}``: Codex CLI ignores the flat
SSE-style shape, measured) and the answer to ``generate: false`` (Codex's prewarm).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import time
import uuid
from collections.abc import Mapping
from typing import Any

import orjson

__all__ = [
    "accept_token",
    "error_text",
    "handshake_problem",
    "parse_create",
    "prewarm_events",
    "wants_websocket",
]

#: RFC 6455's GUID, appended to the client's key for the accept token.
_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"


def _tokens(value: str) -> set[str]:
    return {t.strip().lower() for t in value.split(",")}


def wants_websocket(headers: Mapping[str, str]) -> bool:
    """Does the request ask to upgrade to WebSocket (``Upgrade: websocket``)? ``headers``
    by lower-case name."""
    return "websocket" in _tokens(headers.get("upgrade", "") or "")


def handshake_problem(
    method: str, version: str, headers: Mapping[str, str]
) -> tuple[int, str, list[tuple[str, str]]] | None:
    """Why an upgrade cannot be accepted (RFC 6455 4.2.1): (status, reason, headers), or None.
    A version other than 13 gets 426 with the version the server speaks (4.4)."""
    if method != "GET":
        return 405, f"a WebSocket upgrade takes GET, not {method[:16]}", [("allow", "GET")]
    if version != "HTTP/1.1":
        return 400, "a WebSocket upgrade needs HTTP/1.1", []
    if "upgrade" not in _tokens(headers.get("connection", "") or ""):
        return 400, "a WebSocket upgrade without 'connection: upgrade'", []
    if (headers.get("sec-websocket-version", "") or "").strip() != "13":
        return 426, "WebSocket version 13 only", [("sec-websocket-version", "13")]
    key = (headers.get("sec-websocket-key", "") or "").strip()
    try:
        ok = len(base64.b64decode(key, validate=True)) == 16
    except (binascii.Error, ValueError):
        ok = False
    if not ok:
        return 400, "a bad sec-websocket-key (16 bytes in base64)", []
    return None


def accept_token(key: str) -> str:
    """``Sec-WebSocket-Accept`` for the client's ``Sec-WebSocket-Key`` (RFC 6455 4.2.2)."""
    digest = hashlib.sha1(key.strip().encode("ascii") + _GUID).digest()  # the RFC's hash, no secret
    return base64.b64encode(digest).decode("ascii")


def parse_create(text: str | bytes) -> tuple[dict[str, Any] | None, str]:
    """A client message as a ``response.create`` (its object), or None and why not, in the
    words a provider would use."""
    if isinstance(text, bytes):
        return None, "Binary messages are not supported; send JSON text."
    try:
        obj = orjson.loads(text)  # refuses nesting past 1024 levels (json would recurse)
    except orjson.JSONDecodeError:
        return None, "The message is not valid JSON."
    if not isinstance(obj, dict):
        return None, "The message must be a JSON object."
    kind = obj.get("type")
    if kind != "response.create":
        shown = kind if isinstance(kind, str) else None
        return None, f"Unsupported event type {shown[:64]!r}." if shown else "Missing 'type'."
    return obj, ""


def error_text(status: int, body: bytes | dict[str, Any]) -> str:
    """An HTTP error as the WebSocket mode's ``error`` event: the status, and the body's
    ``error`` object nested (a body without one becomes one, its text the message)."""
    obj: Any = body
    if isinstance(body, bytes):
        try:
            obj = json.loads(body)
        except ValueError:
            obj = None
    err = obj.get("error") if isinstance(obj, dict) else None
    if not isinstance(err, dict):
        text = body.decode("utf-8", "replace")[:500] if isinstance(body, bytes) else ""
        kind = "server_error" if status >= 500 else "invalid_request_error"
        err = {"type": kind, "code": None, "message": text or f"HTTP {status}"}
    return json.dumps({"type": "error", "status": status, "error": err})


def prewarm_events(obj: Mapping[str, Any]) -> tuple[str, list[str]]:
    """``generate: false`` (Codex's prewarm) answered as OpenAI does: the new response's id,
    and its ``response.created`` then ``response.completed`` with an empty output (a later
    turn may chain from that id)."""
    rid = f"resp_ws{uuid.uuid4().hex}"
    model = obj.get("model") if isinstance(obj.get("model"), str) else None
    response: dict[str, Any] = {
        "id": rid, "object": "response", "created_at": int(time.time()),
        "status": "in_progress", "error": None, "incomplete_details": None, "model": model,
        "output": [], "previous_response_id": obj.get("previous_response_id"), "usage": None,
    }  # fmt: skip
    usage = {
        "input_tokens": 0, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 0,
        "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 0,
    }  # fmt: skip
    created = {"type": "response.created", "response": response, "sequence_number": 0}
    done = {**response, "status": "completed", "usage": usage}
    completed = {"type": "response.completed", "response": done, "sequence_number": 1}
    return rid, [json.dumps(created), json.dumps(completed)]
