"""The reference reading of a case: what its events mean, read with the stdlib alone.

A client's outcome is judged against this reading, never against sseconform's own model, so a
bug in the model cannot hide a client's. The reading is lenient: it takes every event at its
word (a delta with no block start still adds its text; a tool call with no ``index`` is the one
at its place in the list) and keeps what a correct stream would have given. Where the events
cannot say what was meant, the reading says so with ``None``:

* a finish reason that the grammar does not define, or no finish at all (and no error): the
  finish is unknown, so a client that ends without an error is wrong whatever it reports;
* tool-call arguments that are not JSON (``""`` counts as ``{}``), unless the answer was cut
  by the token limit (then the cut arguments are what was meant, and the finish says so);
* a call with no id or no name: the real one is unknowable.

``tests/interop/matrix/expect/<grammar>.json`` corrects the reading for single cases where
the events say one thing and a correct stream would have said another (a Latin-1 byte for
"é", say); each entry gives its reason.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

EXPECT = Path(__file__).resolve().parent / "expect"

#: The finishes every grammar's reading and every client's result are put into.
FINISHES = ("stop", "length", "tool_calls", "content_filter")


@dataclass(frozen=True)
class Call:
    """One tool call: ``arguments`` is the JSON value, or the raw text when it is not JSON."""

    id: str | None
    name: str | None
    arguments: Any
    parsed: bool = True
    cut: bool = False  # cut by the token limit: any partial arguments are what was meant


@dataclass(frozen=True)
class Reading:
    """One answer (choice 0, or the only one) as a correct client would report it.

    ``finish`` is one of FINISHES or None (unknown); ``error`` is the message of an error the
    stream carried, which a correct client surfaces instead of an answer.
    """

    text: str = ""
    calls: tuple[Call, ...] = ()
    finish: str | None = None
    error: str | None = None
    raw_finish: str | None = None
    refusal: str = ""
    notes: tuple[str, ...] = ()


@dataclass
class _Choice:
    text: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    finish: str | None = None


def events(body: bytes) -> list[tuple[str | None, str]]:
    """The (event name, data) pairs of an SSE body, per the WHATWG rules (but see below)."""
    text = body.decode("utf-8", "replace").removeprefix("\ufeff")
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    out: list[tuple[str | None, str]] = []
    name: str | None = None
    data: list[str] = []
    for line in lines:
        if line == "":
            if data:
                out.append((name, "\n".join(data)))
            name, data = None, []
            continue
        if line.startswith(":"):
            continue
        key, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if key == "data":
            data.append(value)
        elif key == "event":
            name = value
    if data:  # the spec drops an unterminated last event; what it meant is still read
        out.append((name, "\n".join(data)))
    return out


def _json(data: str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return None


def arguments(raw: Any, cut: bool) -> tuple[Any, bool]:
    """A call's arguments as a JSON value, and whether they are what was meant."""
    if not isinstance(raw, str):
        return raw, True
    if raw.strip() == "":
        return {}, True
    try:
        return json.loads(raw), True
    except ValueError:
        return raw, cut


def _call(c: dict[str, Any], cut: bool) -> Call:
    raw = "".join(c["arguments"])
    value, ok = arguments(raw, cut)
    broken = arguments(raw, False)[1] is False
    return Call(c["id"] or None, c["name"] or None, value, ok, cut and broken)


# -- chat ---------------------------------------------------------------------------------------

CHAT_FINISHES = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "content_filter": "content_filter",
}


def read_chat(body: bytes) -> dict[int, Reading]:
    """Every choice of a chat.completion.chunk stream, by index."""
    choices: dict[int, _Choice] = {}
    error: str | None = None
    for _, data in events(body):
        obj = _json(data)
        if not isinstance(obj, dict):
            continue
        if obj.get("error") is not None and error is None:
            err = obj["error"]
            error = str(err.get("message")) if isinstance(err, dict) else str(err)
            continue
        for pos, ch in enumerate(obj.get("choices") or []):
            if not isinstance(ch, dict):
                continue
            index = v if isinstance(v := ch.get("index"), int) else pos
            state = choices.setdefault(index, _Choice())
            delta = v if isinstance(v := ch.get("delta"), dict) else {}
            if isinstance(delta.get("content"), str):
                state.text.append(delta["content"])
            if isinstance(delta.get("refusal"), str):
                state.refusal.append(delta["refusal"])
            for tpos, tc in enumerate(delta.get("tool_calls") or []):
                if not isinstance(tc, dict):
                    continue
                tindex = v if isinstance(v := tc.get("index"), int) else tpos
                call = state.calls.setdefault(tindex, {"id": None, "name": None, "arguments": []})
                fn = v if isinstance(v := tc.get("function"), dict) else {}
                if isinstance(tc.get("id"), str) and call["id"] is None:
                    call["id"] = tc["id"]
                if isinstance(fn.get("name"), str) and call["name"] is None:
                    call["name"] = fn["name"]
                if isinstance(fn.get("arguments"), str):
                    call["arguments"].append(fn["arguments"])
            if isinstance(ch.get("finish_reason"), str) and state.finish is None:
                state.finish = ch["finish_reason"]
    out = {}
    for index, state in sorted(choices.items()):
        cut = state.finish == "length"
        out[index] = Reading(
            text="".join(state.text),
            calls=tuple(_call(c, cut) for _, c in sorted(state.calls.items())),
            finish=CHAT_FINISHES.get(state.finish or ""),
            error=error,
            raw_finish=state.finish,
            refusal="".join(state.refusal),
        )
    return out or {0: Reading(error=error)}


# -- anthropic ----------------------------------------------------------------------------------

ANTHROPIC_FINISHES = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
    # A server tool's loop paused, to be continued by the caller: no chat finish says that, so
    # a correct client reports it by its own name.
    "pause_turn": "other:pause_turn",
}


def read_anthropic(body: bytes) -> Reading:
    """An Anthropic Messages stream: text blocks joined, tool_use blocks in block order."""
    blocks: dict[int, dict[str, Any]] = {}
    stop: str | None = None
    error: str | None = None
    for name, data in events(body):
        obj = _json(data)
        if not isinstance(obj, dict):
            continue
        kind = obj.get("type") if isinstance(obj.get("type"), str) else name
        index = v if isinstance(v := obj.get("index"), int) else None
        if kind == "message_start" and isinstance(obj.get("message"), dict):
            stop = obj["message"].get("stop_reason") or stop
        elif kind == "content_block_start" and index is not None:
            block = v if isinstance(v := obj.get("content_block"), dict) else {}
            blocks.setdefault(index, {"type": block.get("type"), "text": [], "json": []})
            b = blocks[index]
            b.update(type=block.get("type"), id=block.get("id"), name=block.get("name"))
            if isinstance(block.get("text"), str):
                b["text"].append(block["text"])
            b["input"] = block.get("input")
        elif kind == "content_block_delta" and index is not None:
            delta = v if isinstance(v := obj.get("delta"), dict) else {}
            dtype = delta.get("type")
            implied = "tool_use" if dtype == "input_json_delta" else "text"
            b = blocks.setdefault(index, {"type": implied, "text": [], "json": []})
            if dtype == "text_delta" and isinstance(delta.get("text"), str):
                b["text"].append(delta["text"])
            elif dtype == "input_json_delta" and isinstance(delta.get("partial_json"), str):
                b["json"].append(delta["partial_json"])
        elif kind == "message_delta" and isinstance(obj.get("delta"), dict):
            stop = obj["delta"].get("stop_reason") or stop
        elif kind == "error" and error is None:
            err = obj.get("error")
            error = str(err.get("message")) if isinstance(err, dict) else str(err)
    cut = stop == "max_tokens"
    text = []
    calls = []
    for _, b in sorted(blocks.items()):
        if b["type"] == "text":
            text.append("".join(b["text"]))
        elif b["type"] == "tool_use":
            raw = "".join(b["json"])
            if not raw and isinstance(b.get("input"), dict) and b["input"]:
                raw = json.dumps(b["input"])
            calls.append(_call({"id": b.get("id"), "name": b.get("name"), "arguments": [raw]}, cut))
    return Reading(
        text="".join(text),
        calls=tuple(calls),
        finish=ANTHROPIC_FINISHES.get(stop or ""),
        error=error,
        raw_finish=stop,
    )


# -- responses ----------------------------------------------------------------------------------

RESPONSES_INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}


def responses_finish(status: str | None, reason: str | None, has_calls: bool) -> str | None:
    """A Responses status (and incomplete reason) as one of FINISHES."""
    if status == "completed":
        return "tool_calls" if has_calls else "stop"
    if status == "incomplete":
        return RESPONSES_INCOMPLETE.get(reason or "")
    return None


def read_responses(body: bytes, renamed: dict[str, str] | None = None) -> Reading:
    """A Responses stream: output_text deltas joined, function_call items in output order.

    ``renamed`` reads events of one name as another's (a profile's names for OpenAI's events).
    The ``error`` event is read with its payload flat (OpenAI's) or nested under ``error``."""
    items: dict[int, dict[str, Any]] = {}
    status: str | None = None
    reason: str | None = None
    error: str | None = None
    for name, data in events(body):
        if data.strip() == "[DONE]":
            continue  # Open Responses' end of stream (OpenAI's Responses never send it)
        obj = _json(data)
        if not isinstance(obj, dict):
            continue
        kind = obj.get("type") if isinstance(obj.get("type"), str) else name
        kind = (renamed or {}).get(kind or "", kind)
        pos = v if isinstance(v := obj.get("output_index"), int) else 0
        if kind in ("response.output_item.added", "response.output_item.done"):
            item = v if isinstance(v := obj.get("item"), dict) else {}
            it = items.setdefault(pos, {"text": [], "args": [], "done_args": None})
            it.update({k: item.get(k) for k in ("type", "call_id", "name") if item.get(k)})
            if kind.endswith(".done") and isinstance(item.get("arguments"), str):
                it["done_args"] = item["arguments"]
        elif kind == "response.output_text.delta" and isinstance(obj.get("delta"), str):
            items.setdefault(pos, {"text": [], "args": [], "done_args": None})["text"].append(
                obj["delta"]
            )
        elif kind == "response.function_call_arguments.delta":
            it = items.setdefault(pos, {"text": [], "args": [], "done_args": None})
            if isinstance(obj.get("delta"), str):
                it["args"].append(obj["delta"])
        elif kind == "response.function_call_arguments.done":
            it = items.setdefault(pos, {"text": [], "args": [], "done_args": None})
            if isinstance(obj.get("arguments"), str):
                it["done_args"] = obj["arguments"]
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            resp = v if isinstance(v := obj.get("response"), dict) else {}
            status = resp.get("status") or kind.removeprefix("response.")
            details = resp.get("incomplete_details")
            reason = details.get("reason") if isinstance(details, dict) else None
            err = resp.get("error")
            if kind == "response.failed" and error is None:
                error = str(err.get("message")) if isinstance(err, dict) else str(err or "failed")
        elif kind == "error" and error is None:
            err = v if isinstance(v := obj.get("error"), dict) else obj
            error = str(err.get("message"))
    cut = status == "incomplete" and reason == "max_output_tokens"
    text = []
    calls = []
    for _, it in sorted(items.items()):
        if it.get("type") == "function_call":
            raw = it["done_args"] if it["done_args"] is not None else "".join(it["args"])
            calls.append(
                _call({"id": it.get("call_id"), "name": it.get("name"), "arguments": [raw]}, cut)
            )
        else:
            text.append("".join(it["text"]))
    return Reading(
        text="".join(text),
        calls=tuple(calls),
        finish=responses_finish(status, reason, bool(calls)),
        error=error,
        raw_finish=status if reason is None else f"{status}:{reason}",
    )


# -- open responses -----------------------------------------------------------------------------

#: The Open Responses specification's names for OpenAI's raw reasoning events: its
#: ``response.reasoning.*`` are read as OpenAI's ``response.reasoning_text.*`` (reasoning text,
#: which is not the answer's text).
OPEN_RESPONSES_NAMES = {
    "response.reasoning.delta": "response.reasoning_text.delta",
    "response.reasoning.done": "response.reasoning_text.done",
}


def read_open_responses(body: bytes) -> Reading:
    """An Open Responses stream: a Responses stream, with the specification's reasoning event
    names, its nested ``error`` event, and ``data: [DONE]`` after the terminal event (the end of
    the stream, nothing to read)."""
    return read_responses(body, renamed=OPEN_RESPONSES_NAMES)


# -- the reading of a case ----------------------------------------------------------------------


def expectations(grammar: str) -> dict[str, dict[str, Any]]:
    """The corrections for a grammar's cases, by case id (``fail/<name>``)."""
    path = EXPECT / f"{grammar}.json"
    if not path.is_file():
        return {}
    data: dict[str, dict[str, Any]] = json.loads(path.read_text())
    return data


def correct(reading: Reading, fix: dict[str, Any]) -> Reading:
    """A reading with a case's corrections applied (``text``, ``finish``, ``error``, ``calls``);
    an entry's ``known`` part is for the tests, not the reading."""
    changes: dict[str, Any] = {}
    for key in ("text", "finish", "error"):
        if key in fix:
            changes[key] = fix[key]
    if "calls" in fix:
        changes["calls"] = tuple(
            Call(c.get("id"), c.get("name"), c.get("arguments"), c.get("parsed", True))
            for c in fix["calls"]
        )
    if not changes:
        return reading
    return replace(reading, **changes, notes=(*reading.notes, str(fix.get("why", ""))))


# -- gemini -------------------------------------------------------------------------------------

GEMINI_FINISHES = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "BLOCKLIST": "content_filter",
    "SPII": "content_filter",
}


def _gemini_leak(obj: dict[str, Any]) -> str:
    """The text of another grammar's delta left in a Gemini stream, taken at its word."""
    if isinstance(obj.get("choices"), list):
        return "".join(
            str(c["delta"].get("content") or "")
            for c in obj["choices"]
            if isinstance(c, dict) and isinstance(c.get("delta"), dict)
        )
    delta = obj.get("delta")
    if obj.get("type") == "content_block_delta" and isinstance(delta, dict):
        return str(delta.get("text") or "")
    if obj.get("type") == "response.output_text.delta":
        return str(obj.get("delta") or "")
    return ""


def read_gemini(body: bytes) -> dict[int, Reading]:
    """A Gemini stream, by candidate index: text parts joined (thoughts left out), function
    calls in order (a part without a name is a call of its own; Vertex's arguments streamed
    in ``partialArgs`` pieces are set at their ``jsonPath``), the last finishReason (a blocked
    prompt's is a content filter's), and an error chunk's message. Another grammar's delta
    left in the stream adds its text."""
    texts: dict[int, list[str]] = {}
    calls: dict[int, list[dict[str, Any]]] = {}
    finish: dict[int, str] = {}
    error: str | None = None
    streaming = False
    for _, data in events(body):
        obj = _json(data)
        if not isinstance(obj, dict):
            continue
        if "error" in obj and "candidates" not in obj:
            err = obj["error"]
            error = error or (str(err.get("message")) if isinstance(err, dict) else str(err))
            continue
        feedback = obj.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            finish.setdefault(0, "SAFETY")  # the prompt was blocked: no candidate will come
        leaked = _gemini_leak(obj)
        if leaked:
            texts.setdefault(0, []).append(leaked)
        for cand in obj.get("candidates") or []:
            if not isinstance(cand, dict):
                continue
            index = v if isinstance(v := cand.get("index"), int) else 0
            content = c if isinstance(c := cand.get("content"), dict) else {}
            for part in content.get("parts") or []:
                if not isinstance(part, dict):
                    continue
                if isinstance(part.get("text"), str) and part.get("thought") is not True:
                    texts.setdefault(index, []).append(part["text"])
                fc = part.get("functionCall")
                if not isinstance(fc, dict):
                    continue
                mine = calls.setdefault(index, [])
                if fc.get("name") or not streaming:
                    args = fc.get("args")
                    mine.append({"id": fc.get("id"), "name": fc.get("name"), "args": args})
                elif mine and isinstance(mine[-1].get("args"), dict | None):
                    for piece in fc.get("partialArgs") or []:
                        path = str(piece.get("jsonPath", "")).removeprefix("$.")
                        got = next((piece[k] for k in piece if k.endswith("Value")), None)
                        args = mine[-1]["args"] = mine[-1]["args"] or {}
                        if isinstance(got, str) and isinstance(args.get(path), str):
                            args[path] += got
                        elif path:
                            args[path] = got
                streaming = fc.get("willContinue") is True
            if isinstance(cand.get("finishReason"), str):
                finish[index] = cand["finishReason"]
    out = {}
    for index in sorted(set(texts) | set(calls) | set(finish)) or [0]:
        raw = [
            json.dumps(c["args"] if c["args"] is not None else {})
            if not isinstance(c["args"], str)
            else c["args"]
            for c in calls.get(index, [])
        ]
        made = tuple(
            _call({"id": c["id"], "name": c["name"], "arguments": [r]}, False)
            for c, r in zip(calls.get(index, []), raw, strict=True)
        )
        out[index] = Reading(
            text="".join(texts.get(index, [])),
            calls=made,
            finish=GEMINI_FINISHES.get(finish.get(index, "")),
            error=error,
            raw_finish=finish.get(index),
        )
    return out


def read(grammar: str, body: bytes) -> dict[int, Reading]:
    """The reference reading of a body in a grammar, by choice index."""
    if grammar == "chat":
        return read_chat(body)
    if grammar == "anthropic":
        return {0: read_anthropic(body)}
    if grammar == "responses":
        return {0: read_responses(body)}
    if grammar == "open-responses":
        return {0: read_open_responses(body)}
    if grammar == "gemini":
        return read_gemini(body)
    raise ValueError(f"unknown grammar {grammar!r}")
