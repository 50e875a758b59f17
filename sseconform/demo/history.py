"""The demo gateway's request translation: a client's conversation, in its endpoint's shape,
forwarded in the upstream's, with the opaque state it sends back put where that upstream
verifies it (what a faithful gateway does on a conversation's next turn).

A conversation is read into one list of turns of items (text, thinking with its state, a
call, a result), then written in the upstream's shape. Where the client's endpoint kept
the upstream's state (``sseconform.translate.state``: a chat ``reasoning_details`` entry, a
thinking block's ``signature``, a reasoning item's ``encrypted_content``), it goes back to
the upstream's own field: a thinking block's signature (Anthropic), a reasoning item's
encrypted content (Responses), the thought signature of the call part it came with
(Gemini: a thinking item's state goes to the call after it).
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

from sseconform.translate.state import ANTHROPIC, GEMINI, signature
from sseconform.wires import by_endpoint

Obj = dict[str, Any]


@dataclass
class Piece:
    kind: str  # text, thinking, call, result
    text: str = ""
    state: str | None = None
    redacted: bool = False
    id: str = ""
    name: str = ""
    args: str = "{}"
    #: the prompt-cache breakpoint on it (``cache_control``: Anthropic's, or a chat part's
    #: as LiteLLM, Portkey and OpenRouter take it), carried to an Anthropic upstream
    cache: Obj | None = None


@dataclass
class Speaker:
    """One side's consecutive pieces of a conversation (a turn, as the upstream sees it)."""

    role: str  # user or assistant
    items: list[Piece] = field(default_factory=list)


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(
            str(b.get("text", "")) for b in content if isinstance(b, dict) and "text" in b
        )
    return "" if content is None else str(content)


def read(
    endpoint: str, body: Obj, drop_thinking: bool = False, signed: dict[str, str] | None = None
) -> list[Speaker]:
    """The client's conversation (``endpoint``: the gateway path's grammar; ``signed``: the
    thinking text of each signature the gateway served a Gemini client)."""
    if endpoint == "responses":
        turns = _read_responses(body)
    elif endpoint == "gemini":
        turns = _read_gemini(body, signed or {})
    else:
        turns = _read_messages(body)
    if drop_thinking:
        for t in turns:
            t.items = [i for i in t.items if i.kind != "thinking"]
    return turns


def _add(turns: list[Speaker], role: str, item: Piece) -> None:
    if not turns or turns[-1].role != role:
        turns.append(Speaker(role))
    turns[-1].items.append(item)


def _read_messages(body: Obj) -> list[Speaker]:
    """Chat messages or Anthropic messages (the shapes differ by key, not by place)."""
    turns: list[Speaker] = []
    for m in body.get("messages") or []:
        if not isinstance(m, dict):
            continue
        role, content = m.get("role"), m.get("content")
        if role == "tool":
            _add(turns, "user", Piece("result", _text(content), id=str(m.get("tool_call_id"))))
            continue
        carriers = ("tool_calls", "reasoning_details", "thinking_blocks", "reasoning_content")
        if role == "assistant" and any(k in m for k in carriers):
            _read_chat_assistant(turns, m)
            continue
        if isinstance(content, list):
            for b in content:
                _read_block(turns, str(role), b)
        else:
            _add(
                turns, "assistant" if role == "assistant" else "user", Piece("text", _text(content))
            )
    return turns


def _read_chat_assistant(turns: list[Speaker], m: Obj) -> None:
    thinking = Piece("thinking", str(m.get("reasoning_content") or ""))
    states: dict[str, str] = {}  # a call's id -> its state
    for d in list(m.get("reasoning_details") or []) + list(m.get("thinking_blocks") or []):
        if not isinstance(d, dict):
            continue
        value = d.get("signature") or d.get("data")
        if not isinstance(value, str) or not value:
            continue
        if isinstance(d.get("id"), str) and d.get("format") == GEMINI:
            states[d["id"]] = value
        else:
            thinking.state = value
            thinking.redacted = d.get("type") in ("reasoning.encrypted", "redacted_thinking") and (
                d.get("format") in (None, ANTHROPIC)
            )
    if thinking.text or thinking.state:
        _add(turns, "assistant", thinking)
    if m.get("content"):
        _add(turns, "assistant", Piece("text", _text(m["content"])))
    for call in m.get("tool_calls") or []:
        fn = call.get("function") or {}
        cid = str(call.get("id"))
        _add(
            turns,
            "assistant",
            Piece("call", state=states.get(cid), id=cid, name=str(fn.get("name")),
                 args=str(fn.get("arguments") or "{}")),
        )  # fmt: skip


def _read_block(turns: list[Speaker], role: str, b: Any) -> None:
    if not isinstance(b, dict):
        return
    kind = b.get("type")
    who = "assistant" if role == "assistant" else "user"
    if kind == "thinking":
        _add(turns, who, Piece("thinking", str(b.get("thinking", "")), b.get("signature") or None))
    elif kind == "redacted_thinking":
        _add(turns, who, Piece("thinking", state=str(b.get("data")), redacted=True))
    elif kind == "tool_use":
        args = json.dumps(b.get("input") or {})
        _add(turns, who, Piece("call", id=str(b.get("id")), name=str(b.get("name")), args=args))
    elif kind == "tool_result":
        _add(turns, "user", Piece("result", _text(b.get("content")), id=str(b.get("tool_use_id"))))
    elif "text" in b:
        cache = b.get("cache_control")
        _add(
            turns,
            who,
            Piece("text", str(b["text"]), cache=cache if isinstance(cache, dict) else None),
        )


def _read_responses(body: Obj) -> list[Speaker]:
    turns: list[Speaker] = []
    items = body.get("input")
    if isinstance(items, str):
        return [Speaker("user", [Piece("text", items)])]
    for it in items or []:
        if not isinstance(it, dict):
            continue
        kind = it.get("type")
        if kind == "reasoning":
            summary = "".join(str(s.get("text", "")) for s in it.get("summary") or [])
            _add(turns, "assistant", Piece("thinking", summary, it.get("encrypted_content")))
        elif kind == "function_call":
            _add(
                turns,
                "assistant",
                Piece("call", id=str(it.get("call_id")), name=str(it.get("name")),
                     args=str(it.get("arguments") or "{}")),
            )  # fmt: skip
        elif kind == "function_call_output":
            _add(turns, "user", Piece("result", _text(it.get("output")), id=str(it.get("call_id"))))
        else:
            role = "assistant" if it.get("role") == "assistant" else "user"
            _add(turns, role, Piece("text", _text(it.get("content"))))
    return turns


def _read_gemini(body: Obj, signed: dict[str, str]) -> list[Speaker]:
    """Gemini's ``contents``: a thought part's text, a call's ``thoughtSignature`` (the state
    Gemini verifies; another upstream's state, unwrapped, with the thinking text it signed),
    results paired with their calls by id, else by name."""
    turns: list[Speaker] = []
    ids: dict[str, list[str]] = {}  # a call's name -> its ids, for the results without one
    for n, c in enumerate(body.get("contents") or []):
        if not isinstance(c, dict):
            continue
        who = "assistant" if c.get("role") == "model" else "user"
        for k, p in enumerate(c.get("parts") or []):
            if not isinstance(p, dict):
                continue
            call, result = p.get("functionCall"), p.get("functionResponse")
            if isinstance(call, dict):
                cid = str(call.get("id") or f"call_{n}_{k}")
                ids.setdefault(str(call.get("name")), []).append(cid)
                sig = p.get("thoughtSignature")
                if isinstance(sig, str) and sig:  # another upstream's state, as we wrapped it
                    state = _unwrapped(sig)
                    _add(turns, who, Piece("thinking", signed.get(state, ""), state=state))
                item = Piece(
                    "call",
                    id=cid,
                    name=str(call.get("name")),
                    args=json.dumps(call.get("args") or {}),
                )
                _add(turns, who, item)  # fmt: skip
            elif isinstance(result, dict):
                waiting = ids.get(str(result.get("name"))) or [""]
                cid = str(result.get("id") or waiting.pop(0))
                _add(turns, "user", Piece("result", json.dumps(result.get("response")), id=cid))
            elif p.get("thought"):
                _add(
                    turns, who, Piece("thinking", str(p.get("text", "")), p.get("thoughtSignature"))
                )
            elif "text" in p:
                _add(turns, who, Piece("text", str(p["text"])))
    return turns


def _unwrapped(signature: str) -> str:
    """The state a thoughtSignature carries: the reference translation writes another
    dialect's state into it as base64 (google-genai requires base64 there)."""
    try:
        return base64.b64decode(signature, validate=True).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        return signature


# -- written in the upstream's shape -------------------------------------------------------


def write(dialect: str, turns: list[Speaker]) -> tuple[str, list[Any]]:
    """``(key, entries)``: the upstream request's conversation (``messages``, ``input`` or
    ``contents``)."""
    names = {i.id: i.name for t in turns for i in t.items if i.kind == "call"}
    if dialect == "anthropic":
        return "messages", [_anthropic(t) for t in turns]
    if dialect == "responses":
        return "input", [e for t in turns for e in _responses(t)]
    if dialect == "gemini":
        return "contents", [_gemini(t, names) for t in turns]
    return "messages", [m for t in turns for m in _chat(t)]


def _anthropic(t: Speaker) -> Obj:
    blocks: list[Obj] = []
    for i in t.items:
        if i.kind == "thinking" and i.state:
            if i.redacted:
                blocks.append({"type": "redacted_thinking", "data": i.state})
            else:
                blocks.append({"type": "thinking", "thinking": i.text, "signature": i.state})
        elif i.kind == "text" and i.text:
            marked = {"cache_control": i.cache} if i.cache else {}
            blocks.append({"type": "text", "text": i.text, **marked})
        elif i.kind == "call":
            blocks.append(
                {"type": "tool_use", "id": i.id, "name": i.name, "input": json.loads(i.args)}
            )
        elif i.kind == "result":
            blocks.append({"type": "tool_result", "tool_use_id": i.id, "content": i.text})
    if t.role == "user" and len(blocks) == 1 and set(blocks[0]) == {"type", "text"}:
        return {"role": "user", "content": blocks[0]["text"]}
    return {"role": t.role, "content": blocks}


def _responses(t: Speaker) -> list[Obj]:
    out: list[Obj] = []
    for i in t.items:
        if i.kind == "thinking" and i.state:
            summary = [{"type": "summary_text", "text": i.text}] if i.text else []
            out.append({"type": "reasoning", "summary": summary, "encrypted_content": i.state})
        elif i.kind == "text":
            out.append({"role": t.role, "content": i.text})
        elif i.kind == "call":
            out.append(
                {"type": "function_call", "call_id": i.id, "name": i.name, "arguments": i.args}
            )
        elif i.kind == "result":
            out.append({"type": "function_call_output", "call_id": i.id, "output": i.text})
    return out


def _gemini(t: Speaker, names: dict[str, str]) -> Obj:
    parts: list[Obj] = []
    pending: str | None = None  # a thinking item's state: the next call part's signature
    for i in t.items:
        if i.kind == "thinking":
            if i.text:
                parts.append({"text": i.text, "thought": True})
            pending = i.state or pending
        elif i.kind == "text":
            parts.append({"text": i.text})
        elif i.kind == "call":
            part: Obj = {"functionCall": {"name": i.name, "args": json.loads(i.args)}}
            sig = i.state or pending
            if sig:
                part["thoughtSignature"] = sig
                pending = None
            parts.append(part)
        elif i.kind == "result":
            response = {"name": names.get(i.id, ""), "response": {"result": i.text}}
            parts.append({"functionResponse": response})
    return {"role": "model" if t.role == "assistant" else "user", "parts": parts}


def _chat(t: Speaker) -> list[Obj]:
    if t.role == "user":
        out: list[Obj] = [
            {"role": "tool", "tool_call_id": i.id, "content": i.text}
            for i in t.items
            if i.kind == "result"
        ]
        text = "".join(i.text for i in t.items if i.kind == "text")
        return ([{"role": "user", "content": text}] if text else []) + out
    msg: Obj = {
        "role": "assistant",
        "content": "".join(i.text for i in t.items if i.kind == "text"),
    }
    details = [signature(i.state) for i in t.items if i.kind == "thinking" and i.state]
    if details:
        msg["reasoning_details"] = details
    calls = [
        {"id": i.id, "type": "function", "function": {"name": i.name, "arguments": i.args}}
        for i in t.items
        if i.kind == "call"
    ]
    if calls:
        msg["tool_calls"] = calls
    return [msg]


def thinking_config(dialect: str, body: Obj) -> Obj:
    """The upstream request's settings for the thinking the client asked for (Anthropic
    ``thinking``, chat ``reasoning_effort``, Responses ``reasoning``, Gemini's
    ``thinkingConfig``), in its shape."""
    gemini = (body.get("generationConfig") or {}).get("thinkingConfig")
    asked = bool(
        body.get("thinking") or body.get("reasoning_effort") or body.get("reasoning") or gemini
    )
    if not asked:
        return {}
    if dialect == "gemini":
        return {"generationConfig": {"thinkingConfig": {"includeThoughts": True}}}
    if dialect == "responses":  # stored or not, as the client asked
        asks = by_endpoint("responses").reasoning_request
        return {**asks, "store": bool(body.get("store", False))}
    return dict(by_endpoint("messages" if dialect == "anthropic" else "chat").reasoning_request)
