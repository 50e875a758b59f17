"""A conversation's next turn, as each endpoint's reference agent sends it.

The gate's client reads the assistant turn out of the gateway's answer the way the
endpoint's SDK accumulates it, and sends it back with a tool result per call:

=========  ======================================================================================
messages   Claude Code: the assistant message with every block as it arrived - ``thinking``
           with its ``signature``, ``redacted_thinking`` with its ``data``, ``text``,
           ``tool_use`` (input parsed from its ``input_json_delta`` pieces) - then a user
           message of ``tool_result`` blocks
responses  Codex (``store: false``): the user's message, every output item as its
           ``response.output_item.done`` gave it (a reasoning item with its
           ``encrypted_content``, the ``function_call``), then a ``function_call_output`` per
           call; with ``previous_response_id`` (``store: true``) the outputs alone
chat       openai-python's stream accumulator: the assistant message (``content``,
           ``tool_calls`` joined by index, and every other delta field as it accumulated:
           ``reasoning_content``, ``reasoning_details`` joined by index, ``thinking_blocks``),
           then a ``tool`` message per call
gemini     Gemini CLI: the user's turn, then a ``model`` turn of the answer's parts as they
           came, thoughts left out (the CLI keeps them off its history), text joined, each
           ``functionCall`` part with its ``thoughtSignature``; then a user turn of a
           ``functionResponse`` per call (its ``id`` where the call had one)
=========  ======================================================================================

The tool result carries the next turn's ``[sseconform:TAG]``: the replay upstream routes the
turn by the last tag a request holds (the earlier turns' prompts hold theirs).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson

from sseconform.providers import GEMINI_CLI_SIGNATURE
from sseconform.replay.whole import anthropic_delta, events, json_or_empty

__all__ = ["Assistant", "assistant_turn", "next_body"]


@dataclass
class Assistant:
    """The assistant turn the gateway's client got, in its endpoint's request shape."""

    #: messages: content blocks; responses: output items; chat: one assistant message
    parts: list[dict[str, Any]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)  # the call ids, in order
    names: list[str] = field(default_factory=list)  # gemini: each call's name (its pairing)
    response_id: str | None = None  # responses: the response it continues


def assistant_turn(endpoint: str, body: bytes, *, whole: bool = False) -> Assistant:
    """The assistant turn a client of ``endpoint`` reads out of the stream ``body`` (or, with
    ``whole``, out of the one object that answers a non-streaming call)."""
    if whole:
        try:
            obj = orjson.loads(body)
        except orjson.JSONDecodeError:  # no answer a client could read: no turn to send
            obj = None
        objs = [obj] if isinstance(obj, dict) else []
    else:
        objs = [data for _, data in events(body) if isinstance(data, dict)]
    if endpoint == "messages":
        return _messages(objs)
    if endpoint == "responses":
        return _responses(objs)
    if endpoint == "gemini":
        return _gemini(objs)
    return _chat(objs)


def _messages(objs: list[dict[str, Any]]) -> Assistant:
    """Blocks folded as anthropic-sdk folds them (``replay.whole``'s accumulator)."""
    blocks: dict[int, dict[str, Any]] = {}
    partial: dict[int, list[str]] = {}
    for obj in objs:
        kind, index = obj.get("type"), obj.get("index")
        if kind == "content_block_start" and isinstance(index, int):
            block = obj.get("content_block")
            if isinstance(block, dict) and index not in blocks:
                blocks[index] = block
        elif kind == "content_block_delta" and isinstance(index, int) and index in blocks:
            delta = obj.get("delta")
            if isinstance(delta, dict):
                anthropic_delta(blocks[index], delta, partial.setdefault(index, []))
    out = Assistant()
    for index in sorted(blocks):
        block = blocks[index]
        kind = block.get("type")
        if kind == "thinking":
            out.parts.append(
                {"type": "thinking", "thinking": block.get("thinking") or "",
                 "signature": block.get("signature") or ""}
            )  # fmt: skip
        elif kind == "redacted_thinking":
            out.parts.append({"type": "redacted_thinking", "data": block.get("data") or ""})
        elif kind == "text":
            if block.get("text"):
                out.parts.append({"type": "text", "text": block["text"]})
        elif kind == "tool_use":
            raw = partial.get(index)
            args = json_or_empty("".join(raw)) if raw else block.get("input") or {}
            cid = str(block.get("id") or "")
            out.parts.append(
                {"type": "tool_use", "id": cid, "name": block.get("name"), "input": args}
            )
            out.calls.append(cid)
    return out


def _responses(objs: list[dict[str, Any]]) -> Assistant:
    items: dict[int, dict[str, Any]] = {}
    out = Assistant()
    for obj in objs:
        kind = obj.get("type")
        resp = obj.get("response")
        if isinstance(resp, dict) and isinstance(resp.get("id"), str):
            out.response_id = out.response_id or resp["id"]
        if kind == "response.output_item.done" and isinstance(obj.get("output_index"), int):
            item = obj.get("item")
            if isinstance(item, dict):
                items[obj["output_index"]] = item
    for index in sorted(items):
        item = items[index]
        item.pop("status", None)  # an output's status is not an input's
        out.parts.append(item)
        if item.get("type") == "function_call":
            out.calls.append(str(item.get("call_id") or ""))
    return out


def _gemini(objs: list[dict[str, Any]]) -> Assistant:
    """The first candidate's parts, as Gemini CLI keeps them in its history: thought parts
    left out, neighbouring text parts joined (a signature stays on the part it came with),
    and the first call part that came without a signature given Gemini CLI's own
    (``GEMINI_CLI_SIGNATURE``, which Gemini takes: the turn goes on without the thoughts)."""
    out = Assistant()
    for obj in objs:
        candidates = obj.get("candidates")
        first = candidates[0] if isinstance(candidates, list) and candidates else None
        content = first.get("content") if isinstance(first, dict) else None
        parts = content.get("parts") if isinstance(content, dict) else None
        for part in parts if isinstance(parts, list) else ():
            if not isinstance(part, dict) or part.get("thought"):
                continue
            last = out.parts[-1] if out.parts else None
            plain = set(part) == {"text"}
            if plain and last is not None and set(last) == {"text"}:
                last["text"] += str(part["text"])
                continue
            out.parts.append(dict(part))
            call = part.get("functionCall")
            if isinstance(call, dict):
                out.calls.append(str(call.get("id") or ""))
                out.names.append(str(call.get("name") or ""))
    first = next((p for p in out.parts if isinstance(p.get("functionCall"), dict)), None)
    if first is not None and not first.get("thoughtSignature"):
        first["thoughtSignature"] = GEMINI_CLI_SIGNATURE
    return out


def _merge(into: dict[str, Any], delta: dict[str, Any]) -> None:
    """openai-python's accumulation of a delta into a message (its ``accumulate_delta``):
    ``index`` and ``type`` replaced (a discriminator, never joined), other strings joined,
    numbers added, lists joined by each entry's ``index``, dicts merged, anything else
    replaced. Where openai-python raises (a list entry without ``index`` after the first
    list: LiteLLM's ``thinking_blocks``), the entries are kept in the order they came."""
    for key, value in delta.items():
        if key == "index" or value is None:
            continue
        have = into.get(key)
        if key == "type":
            into[key] = value
        elif _joins(have, value):
            into[key] = have + value
        elif isinstance(value, list):
            listed = have if isinstance(have, list) else []
            for entry in value:
                at = entry.get("index") if isinstance(entry, dict) else None
                if not isinstance(at, int):
                    listed.append(entry)
                    continue
                found = next(
                    (e for e in listed if isinstance(e, dict) and e.get("index") == at), None
                )
                if found is None:
                    listed.append(entry)
                else:
                    _merge(found, entry)
            into[key] = listed
        elif isinstance(value, dict) and isinstance(have, dict):
            _merge(have, value)
        else:
            into[key] = value


def _joins(have: Any, value: Any) -> bool:
    """Two strings, or two numbers (not booleans): accumulated by ``+``."""
    if isinstance(have, str) or isinstance(value, str):
        return isinstance(have, str) and isinstance(value, str)
    numbers = (int, float)
    plain = not isinstance(have, bool) and not isinstance(value, bool)
    return plain and isinstance(have, numbers) and isinstance(value, numbers)


def _chat(objs: list[dict[str, Any]]) -> Assistant:
    message: dict[str, Any] = {}
    for obj in objs:
        choices = obj.get("choices")
        for ch in choices if isinstance(choices, list) else ():
            if isinstance(ch, dict) and ch.get("index", 0) == 0:
                delta = ch.get("delta")
                if isinstance(delta, dict):
                    _merge(message, delta)
    out = Assistant()
    calls = message.get("tool_calls")
    sent: dict[str, Any] = {"role": "assistant", "content": message.get("content") or None}
    if isinstance(calls, list) and calls:
        sent["tool_calls"] = []
        for call in calls:
            if not isinstance(call, dict):
                continue
            call = {k: v for k, v in call.items() if k != "index"}
            call.setdefault("type", "function")
            sent["tool_calls"].append(call)
            out.calls.append(str(call.get("id") or ""))
    for key, value in message.items():
        if key not in ("role", "content", "tool_calls") and value:
            if isinstance(value, list):
                value = [
                    {k: v for k, v in e.items() if k != "index"} if isinstance(e, dict) else e
                    for e in value
                ]
            sent[key] = value
    out.parts.append(sent)
    return out


def next_body(
    endpoint: str,
    previous: dict[str, Any],
    answer: Assistant,
    result: str,
    tag: str,
    history: str = "full",
) -> dict[str, Any]:
    """The next request: ``previous`` (the request of the turn ``answer`` answered) with the
    assistant turn and a tool result per call (``result``, then ``[sseconform:TAG]``)."""
    text = f"{result} [sseconform:{tag}]"
    body = dict(previous)  # each key it changes gets a new list
    if endpoint == "messages":
        results = [{"type": "tool_result", "tool_use_id": c, "content": text} for c in answer.calls]
        body["messages"] = [
            *body.get("messages", []),
            {"role": "assistant", "content": answer.parts},
            {"role": "user", "content": results},
        ]
    elif endpoint == "gemini":
        responses = []
        for cid, name in zip(answer.calls, answer.names, strict=True):
            call: dict[str, Any] = {"name": name, "response": {"output": text}}
            if cid:
                call["id"] = cid
            responses.append({"functionResponse": call})
        body["contents"] = [
            *body.get("contents", []),
            {"role": "model", "parts": answer.parts},
            {"role": "user", "parts": responses},
        ]
    elif endpoint == "responses":
        outputs = [
            {"type": "function_call_output", "call_id": c, "output": text} for c in answer.calls
        ]
        if history == "previous-response" and answer.response_id is not None:
            body["previous_response_id"] = answer.response_id
            body["input"] = outputs
        else:
            earlier = body.get("input")
            if isinstance(earlier, str):
                earlier = [{"role": "user", "content": earlier}]
            body["input"] = [*(earlier or []), *answer.parts, *outputs]
    else:
        tools = [{"role": "tool", "tool_call_id": c, "content": text} for c in answer.calls]
        body["messages"] = [*body.get("messages", []), *answer.parts, *tools]
    return body
