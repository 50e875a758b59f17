"""The replay upstream checks what comes back, as the provider does: the history a request
carries must hold the opaque state this upstream issued, unchanged, where the provider
verifies it. A request that fails is refused with the status, error type and message that
provider answers, so a gateway that lost or changed the state is refused here as it would
be in production, and its next turn fails the same way.

What is checked, per dialect (only what a request's history holds; a first turn has none):

- anthropic: each ``thinking`` block's ``signature`` and each ``redacted_thinking`` block's
  ``data`` were issued, a thinking block's text the very text its signature was issued with
  (the signature signs it); with thinking on, a final assistant turn that calls a tool starts
  with a thinking block; each ``tool_result`` answers a ``tool_use`` of the turn before it,
  and each ``tool_use`` is answered in the next message.
- responses: each ``reasoning`` item's ``encrypted_content`` was issued (with ``store:
  false`` an item without it is refused: nothing was stored to read it from); each
  ``function_call_output`` answers a ``function_call`` the input holds (unless the request
  continues a stored response); a ``previous_response_id`` names a response it issued.
- openai (chat): each ``tool`` message answers a call of the assistant message before it,
  and each call of an assistant message is answered before the next user or assistant
  message (chat carries no verified state).
- gemini: a ``functionCall`` part (or ``function_call``: the JSON takes both spellings) of
  a call this upstream issued with a ``thoughtSignature`` carries that signature back,
  unchanged, or one of the values Gemini takes to skip its check (``GEMINI_SKIP_SIGNATURES``:
  Gemini CLI sends one when it has none).

"Issued" is what the recordings being served hold: every signature, encrypted content and
response id in them (a recording is the provider's own answer, replayed).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import orjson

from sseconform.model.state import EMBEDDED as THOUGHT
from sseconform.model.state import StateFolder, sent_back
from sseconform.providers import GEMINI_SKIP_SIGNATURES
from sseconform.replay.plan import Loaded
from sseconform.replay.routing import RequestBody
from sseconform.replay.whole import fold
from sseconform.sse import SSEDecoder

__all__ = ["Issued", "Refusal", "Returned", "check_history", "returned", "returned_of"]

#: Bodies past this are not read for history (the server's own cap on what it parses).
MAX_READ = 16 * 1024 * 1024
_RESPONSE_ID = re.compile(r'"response"\s*:\s*\{\s*"id"\s*:\s*"([^"]{1,200})"')


@dataclass(frozen=True)
class Refusal:
    """What the provider answers a request whose history it cannot accept."""

    status: int
    body: bytes
    #: one line for replay's log: what was wrong, and where
    reason: str


@dataclass
class Issued:
    """The state the served recordings hold: what a request may send back."""

    values: set[str] = field(default_factory=set)
    #: Gemini: the names of the function calls whose part carried a thought signature
    signed_calls: set[str] = field(default_factory=set)
    response_ids: set[str] = field(default_factory=set)
    #: Anthropic: each thinking block's signature, and the thinking text it signs (the
    #: provider verifies both: a block sent back with other text is refused)
    thinking: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, recordings: Iterable[Loaded]) -> Issued:
        out = cls()
        for rec in recordings:
            if rec.dialect is None:
                continue
            if rec.dialect == "anthropic" and b"signature_delta" in rec.body:
                out.thinking.update(_signed_thinking(rec.body))
            folder, decoder = StateFolder(rec.dialect), SSEDecoder()
            for ev in decoder.feed(rec.body) + decoder.finish():
                folder.feed(ev.data, ev.frame, ev.offset)
                if rec.dialect == "gemini" and "thoughtSignature" in ev.data:
                    out.signed_calls |= _signed_calls(ev.data)
                if rec.dialect == "responses" and "response.created" in ev.data:
                    out.response_ids.update(_RESPONSE_ID.findall(ev.data))
            out.values |= folder.finish().values()
        return out


def check_history(dialect: str | None, body: RequestBody, issued: Issued) -> Refusal | None:
    """None when the request's history is one the provider accepts (or it has none). A
    body without the keys a history is made of (nearly every first turn) is not read."""
    if dialect not in _CHECKS or len(body.raw) > MAX_READ:
        return None
    if not any(key in body.raw for key in _HISTORY[dialect]):
        return None
    obj = body.obj
    return _CHECKS[dialect](obj, issued) if obj is not None else None


@dataclass(frozen=True)
class Returned:
    """What a request's history brought back, for ``gate`` to compare with what the
    gateway's client sent: the opaque state in it, and how many tool results."""

    values: frozenset[str]
    results: int


#: What a body must hold to bring back state or a tool result (a first turn holds none).
_RETURNING = (b"ignature", b"encrypted", b"redacted_thinking", THOUGHT.encode(), b'"tool"',
              b"tool_result", b"function_call_output", b"functionResponse",
              b"function_response")  # fmt: skip
NOTHING = Returned(frozenset(), 0)


def returned(obj: dict[str, Any]) -> Returned:
    """The state and the tool results a request (parsed) holds."""
    return Returned(frozenset(sent_back(obj)), _results(obj))


def returned_of(body: RequestBody) -> Returned | None:
    """:func:`returned` of a request body (None: not a JSON object, or past
    :data:`MAX_READ`); a body without any key that holds either is not read."""
    if len(body.raw) > MAX_READ:
        return None
    if not any(mark in body.raw for mark in _RETURNING):
        return NOTHING
    obj = body.obj
    return returned(obj) if obj is not None else None


def _results(obj: dict[str, Any]) -> int:
    """Tool results, in each dialect's shape: chat's ``tool`` messages, Anthropic's
    ``tool_result`` blocks, Responses' ``function_call_output`` items, Gemini's
    ``functionResponse`` parts."""
    n = 0
    for key in ("messages", "input", "contents"):
        entries = obj.get(key)
        for m in entries if isinstance(entries, list) else ():
            if not isinstance(m, dict):
                continue
            if m.get("role") == "tool" or m.get("type") == "function_call_output":
                n += 1
            inner = m.get("content", m.get("parts"))
            for b in inner if isinstance(inner, list) else ():
                if isinstance(b, dict) and (
                    b.get("type") == "tool_result"
                    or "functionResponse" in b
                    or "function_response" in b
                ):
                    n += 1
    return n


# -- anthropic -----------------------------------------------------------------------------


def _anthropic_error(message: str) -> Refusal:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    return Refusal(400, json.dumps(body).encode(), message)


def _anthropic(obj: dict[str, Any], issued: Issued) -> Refusal | None:
    messages = obj.get("messages")
    if not isinstance(messages, list):
        return None
    thinking_on = isinstance(obj.get("thinking"), dict) and obj["thinking"].get("type") in (
        "enabled", "adaptive",
    )  # fmt: skip
    last_assistant = max(
        (i for i, m in enumerate(messages) if isinstance(m, dict) and m.get("role") == "assistant"),
        default=None,
    )
    calls_before: set[str] = set()
    for i, m in enumerate(messages):
        blocks = m.get("content") if isinstance(m, dict) else None
        if not isinstance(blocks, list):
            if calls_before:
                return _unanswered(i - 1, calls_before)
            continue
        calls: set[str] = set()
        for j, b in enumerate(blocks):
            if not isinstance(b, dict):
                continue
            kind = b.get("type")
            where = f"messages.{i}.content.{j}"
            signature = b.get("signature")
            if kind == "thinking" and (
                signature not in issued.values
                or issued.thinking.get(signature, b.get("thinking")) != b.get("thinking")
            ):
                return _anthropic_error(f"{where}: Invalid `signature` in `thinking` block")
            if kind == "redacted_thinking" and b.get("data") not in issued.values:
                return _anthropic_error(f"{where}: Invalid `data` in `redacted_thinking` block")
            if kind == "tool_use" and isinstance(b.get("id"), str):
                calls.add(b["id"])
            if kind == "tool_result" and b.get("tool_use_id") not in calls_before:
                return _anthropic_error(
                    f"{where}: unexpected `tool_use_id` found in `tool_result` blocks: "
                    f"{b.get('tool_use_id')}. Each `tool_result` block must have a "
                    "corresponding `tool_use` block in the previous message."
                )
        answered = {b.get("tool_use_id") for b in blocks if isinstance(b, dict)}
        if calls_before - answered:  # a result of another id was refused above
            return _unanswered(i - 1, calls_before - answered)
        if i == last_assistant and thinking_on and calls and blocks:
            first = blocks[0].get("type") if isinstance(blocks[0], dict) else None
            if first not in ("thinking", "redacted_thinking"):
                return _anthropic_error(
                    f"messages.{i}.content.0.type: Expected `thinking` or `redacted_thinking`, "
                    f"but found `{first}`. When `thinking` is enabled, a final `assistant` "
                    "message must start with a thinking block."
                )
        calls_before = calls
    return None


def _unanswered(i: int, ids: set[str]) -> Refusal:
    return _anthropic_error(
        f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
        f"after: {', '.join(sorted(ids))}. Each `tool_use` block must have a corresponding "
        "`tool_result` block in the next message."
    )


def _signed_thinking(body: bytes) -> dict[str, str]:
    """Each signed thinking block of an Anthropic stream: its signature and its text."""
    answer = fold("anthropic", body)
    try:
        blocks = orjson.loads(answer.body).get("content") if answer.status == 200 else None
    except (orjson.JSONDecodeError, AttributeError):
        return {}
    return {
        b["signature"]: str(b.get("thinking") or "")
        for b in (blocks if isinstance(blocks, list) else ())
        if isinstance(b, dict) and b.get("type") == "thinking" and b.get("signature")
    }


# -- responses -----------------------------------------------------------------------------


def _openai_error(
    message: str, code: str | None, param: str | None = None, status: int = 400
) -> Refusal:
    error = {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    return Refusal(status, json.dumps({"error": error}).encode(), message)


def _responses(obj: dict[str, Any], issued: Issued) -> Refusal | None:
    previous = obj.get("previous_response_id")
    if isinstance(previous, str) and previous not in issued.response_ids:
        return _openai_error(
            f"Previous response with id '{previous}' not found.",
            "previous_response_not_found",
            "previous_response_id",
        )
    items = obj.get("input")
    if not isinstance(items, list):
        return None
    calls = {
        it.get("call_id")
        for it in items
        if isinstance(it, dict) and it.get("type") == "function_call"
    }
    for it in items:
        if not isinstance(it, dict):
            continue
        kind = it.get("type")
        content = it.get("encrypted_content")
        if kind == "reasoning" and content is None and obj.get("store") is False:
            # stateless: the item can only be read from its encrypted content
            return _openai_error(
                f"Item with id '{it.get('id')}' not found. Items are not persisted when "
                "`store` is set to false. Try again with `store` set to true, or remove this "
                "item from your input.",
                None, "input", 404,
            )  # fmt: skip
        if kind == "reasoning" and content is not None and content not in issued.values:
            return _openai_error(
                f"The encrypted content for item {it.get('id')} could not be verified.",
                "invalid_encrypted_content",
            )
        if kind == "function_call_output" and previous is None and it.get("call_id") not in calls:
            return _openai_error(
                f"No tool call found for function call output with call_id {it.get('call_id')}.",
                "invalid_request_error",
                "input",
            )
    return None


# -- openai (chat) -------------------------------------------------------------------------


def _chat(obj: dict[str, Any], issued: Issued) -> Refusal | None:
    """Chat carries no state the provider verifies, but it pairs tool messages with calls:
    each ``tool`` message answers a call of the assistant message before it, and each call
    is answered before the next message of another role."""
    messages = obj.get("messages")
    if not isinstance(messages, list):
        return None
    waiting: list[str] = []  # the calls of the last assistant message not answered yet
    called: set[str] = set()
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            continue
        role = m.get("role")
        if role == "tool":
            if m.get("tool_call_id") not in called:
                return _openai_error(
                    "Invalid parameter: messages with role 'tool' must be a response to a "
                    "preceeding message with 'tool_calls'.",
                    None, f"messages.[{i}].role",
                )  # fmt: skip
            waiting = [c for c in waiting if c != m.get("tool_call_id")]
            continue
        if waiting:
            return _openai_error(
                "An assistant message with 'tool_calls' must be followed by tool messages "
                "responding to each 'tool_call_id'. The following tool_call_ids did not have "
                f"response messages: {', '.join(waiting)}",
                None, f"messages.[{i}].role",
            )  # fmt: skip
        calls = m.get("tool_calls") if role == "assistant" else None
        ids = [c.get("id") for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
        waiting = [c for c in ids if isinstance(c, str)]
        called = set(waiting)
    return None


# -- gemini --------------------------------------------------------------------------------


def _gemini_error(message: str) -> Refusal:
    body = {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}
    return Refusal(400, json.dumps(body).encode(), message)


def _gemini(obj: dict[str, Any], issued: Issued) -> Refusal | None:
    contents = obj.get("contents")
    for i, c in enumerate(contents if isinstance(contents, list) else ()):
        parts = c.get("parts") if isinstance(c, dict) and c.get("role") == "model" else None
        for j, part in enumerate(parts if isinstance(parts, list) else ()):
            call = _call_of(part)
            if call is None:
                continue
            sig = part.get("thoughtSignature", part.get("thought_signature"))
            name = call.get("name")
            if sig is None and name in issued.signed_calls:
                return _gemini_error(
                    "Function call is missing a thought_signature in functionCall parts. This "
                    "is required for tools to work correctly. Additional data, function call "
                    f"`default_api:{name}` , position {j + 1}."
                )
            if sig is not None and sig not in issued.values and sig not in GEMINI_SKIP_SIGNATURES:
                return _gemini_error(f"contents[{i}].parts[{j}]: Thought signature is not valid.")
    return None


def _call_of(part: Any) -> dict[str, Any] | None:
    """A part's function call, in either spelling Gemini's JSON takes (``functionCall``, or
    the proto's ``function_call``, as LiteLLM writes it)."""
    if not isinstance(part, dict):
        return None
    call = part.get("functionCall", part.get("function_call"))
    return call if isinstance(call, dict) else None


def _signed_calls(data: str) -> set[str]:
    try:
        obj = orjson.loads(data)
    except orjson.JSONDecodeError:
        return set()
    out: set[str] = set()
    for cand in obj.get("candidates") or [] if isinstance(obj, dict) else []:
        content = cand.get("content") if isinstance(cand, dict) else None
        for part in content.get("parts") or [] if isinstance(content, dict) else []:
            call = part.get("functionCall") if isinstance(part, dict) else None
            if isinstance(call, dict) and part.get("thoughtSignature"):
                out.add(str(call.get("name")))
    return out


_CHECKS = {"anthropic": _anthropic, "responses": _responses, "gemini": _gemini, "openai": _chat}
#: What a body must hold for a check above to have anything to read.
_HISTORY = {
    "anthropic": (b'"assistant"', b'"tool_result"'),
    "responses": (b'"previous_response_id"', b'"encrypted_content"', b'"function_call_output"'),
    "gemini": (b'"functionCall"', b'"function_call"'),
    "openai": (b'"tool"', b'"tool_calls"'),
}
