"""The OpenAI chat completions wire (``/v1/chat/completions``; the dialect ``openai``).

A stream is ``chat.completion.chunk`` objects, ``data: [DONE]`` at the end: a choice's
``delta`` (``role``, ``content``, ``refusal``, ``reasoning_content``, ``tool_calls`` by
``index``), its ``finish_reason``, a ``usage`` chunk when asked; a mid-stream failure an
``error`` object.

- **whole**: openai-python's chat completion snapshot (``model.Reassembler``'s reading); an
  ``error`` object becomes the HTTP error OpenAI answers with.
- **history**: chat carries no state the provider verifies, but it pairs tool messages with
  calls: each ``tool`` message answers a call of the assistant message before it, and each
  call is answered before the next user or assistant message.
- **next turn**: openai-python's stream accumulator: the assistant message (``content``,
  ``tool_calls`` joined by index, and every other delta field as it accumulated:
  ``reasoning_content``, ``reasoning_details`` joined by index, ``thinking_blocks``), then a
  ``tool`` message per call.
- **state**: no standard field: what real clients read back - OpenRouter's
  ``reasoning_details`` (``signature``, ``reasoning.encrypted`` ``data``), LiteLLM's
  ``thinking_blocks`` (``signature``, ``data``) and a tool call's (or its function's)
  ``provider_specific_fields.thought_signature``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, ClassVar

from sseconform.safetext import printable
from sseconform.wires.base import (
    ANY_OBJECT,
    MAX_BYTES,
    MAX_PIECES,
    NO_ANSWER,
    OPENAI_REASONING,
    Add,
    Asked,
    Assistant,
    EventFilter,
    Issued,
    Refusal,
    Said,
    StateReader,
    Whole,
    Wire,
    as_dict,
    as_list,
    blocks_of,
    cache_markers,
    dumps,
    fixed_temperature,
    flag,
    messages_places,
    metadata_of,
    number,
    openai_error,
    openai_error_answer,
    said_number,
    said_text,
    stop_of,
    structured,
    text,
)
from sseconform.wires.reassemble import Reassembler

__all__ = ["CHAT", "ChatWire", "summarize"]

#: The delta fields that carry generated output.
_OUTPUT = ("content", "reasoning_content", "reasoning", "refusal")
#: ... in the order a timeline names them
_LABEL_ORDER = ("content", "reasoning_content", "reasoning", "tool_calls", "refusal")


class _CarrierState(StateReader):
    """A gateway's carriers in chat chunks, joined by index where they come in pieces."""

    def __init__(self) -> None:
        self.pieces: dict[tuple[str, int, str], list[Any]] = {}
        self.loose: dict[str, int] = {}  # carrier entries without an index, counted

    def feed(self, obj: dict[str, Any], frame: int, offset: int, add: Add) -> None:
        choices = obj.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if not isinstance(delta, dict):
                continue
            self._carrier(delta.get("reasoning_details"), "reasoning_details", frame, offset, add)
            self._carrier(delta.get("thinking_blocks"), "thinking_blocks", frame, offset, add)
            calls = delta.get("tool_calls")
            for call in calls if isinstance(calls, list) else ():
                extra = call.get("provider_specific_fields") if isinstance(call, dict) else None
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(extra, dict) and isinstance(function, dict):
                    extra = function.get("provider_specific_fields")  # LiteLLM reads both
                sig = extra.get("thought_signature") if isinstance(extra, dict) else None
                if isinstance(sig, str) and sig:
                    n = call.get("index", 0)
                    owner = f"tool call {n if isinstance(n, int) else 0}"
                    add("thought-signature", owner, sig, frame, offset)

    def _carrier(self, items: object, name: str, frame: int, offset: int, add: Add) -> None:
        """``reasoning_details`` / ``thinking_blocks`` entries. One with an ``index``
        (OpenRouter's) may bring its value in pieces over several chunks, joined by that
        index; one without (LiteLLM's) is whole, a piece of state of its own."""
        for entry in items if isinstance(items, list) else ():
            if not isinstance(entry, dict):
                continue
            for key, kind in (("signature", "signature"), ("data", "redacted-thinking")):
                value = entry.get(key)
                if not isinstance(value, str) or not value:
                    continue
                if key == "data" and entry.get("type") == "reasoning.encrypted":
                    kind = "encrypted-content"
                index = entry.get("index")
                if not isinstance(index, int):
                    n = self.loose.get(name, 0)
                    self.loose[name] = n + 1
                    add(kind, f"{name}[{n}]", value, frame, offset)
                    continue
                got = self.pieces.setdefault((kind, index, f"{name}[{{}}]"), [[], 0, 0, 0])
                if len(got[0]) < MAX_PIECES and got[1] + len(value) <= MAX_BYTES:
                    got[0].append(value)
                    got[1] += len(value)
                got[2:] = [frame, offset]

    def finish(self, add: Add) -> None:
        for (kind, ordinal, owner), (pieces, _, frame, offset) in list(self.pieces.items()):
            add(kind, owner.format(ordinal), "".join(pieces), frame, offset)
        self.pieces.clear()


class _Joined:
    """A string accumulated by ``+``, kept as its pieces (joined once: linear in its size)."""

    __slots__ = ("pieces",)

    def __init__(self, *pieces: str) -> None:
        self.pieces = list(pieces)


class _Listed:
    """A list accumulated by each entry's ``index`` (found by a table, not a search)."""

    __slots__ = ("at", "entries")

    def __init__(self) -> None:
        self.entries: list[Any] = []
        self.at: dict[int, dict[str, Any]] = {}


def _merge(into: dict[str, Any], delta: dict[str, Any]) -> None:
    """openai-python's accumulation of a delta into a message (its ``accumulate_delta``):
    ``index`` and ``type`` replaced (a discriminator, never joined), other strings joined,
    numbers added, lists joined by each entry's ``index``, dicts merged, anything else
    replaced. Where openai-python raises (a list entry without ``index`` after the first
    list: LiteLLM's ``thinking_blocks``), the entries are kept in the order they came.
    Strings and lists are kept as :class:`_Joined` and :class:`_Listed` until
    :func:`_thawed` (a stream of many deltas costs its length, not its square)."""
    for key, value in delta.items():
        if key == "index" or value is None:
            continue
        have = into.get(key)
        if key == "type":
            into[key] = value
        elif isinstance(value, str):
            if isinstance(have, _Joined):
                have.pieces.append(value)
            else:
                into[key] = _Joined(have, value) if isinstance(have, str) else value
        elif _adds(have, value):
            into[key] = have + value
        elif isinstance(value, list):
            listed = have if isinstance(have, _Listed) else _Listed()
            for entry in value:
                at = entry.get("index") if isinstance(entry, dict) else None
                if not isinstance(at, int) or isinstance(at, bool):
                    listed.entries.append(entry)
                elif at in listed.at:
                    _merge(listed.at[at], entry)
                else:
                    listed.at[at] = fresh = {"index": at}
                    _merge(fresh, entry)
                    listed.entries.append(fresh)
            into[key] = listed
        elif isinstance(value, dict) and isinstance(have, dict):
            _merge(have, value)
        else:
            into[key] = value


def _adds(have: Any, value: Any) -> bool:
    """Two numbers (not booleans): accumulated by ``+``."""
    numbers = (int, float)
    plain = not isinstance(have, bool) and not isinstance(value, bool)
    return plain and isinstance(have, numbers) and isinstance(value, numbers)


def _thawed(value: Any) -> Any:
    """An accumulated value as plain JSON values."""
    if isinstance(value, _Joined):
        return "".join(p for p in value.pieces if isinstance(p, str))
    if isinstance(value, _Listed):
        return [_thawed(e) for e in value.entries]
    if isinstance(value, dict):
        return {k: _thawed(v) for k, v in value.items()}
    return value


def _short(s: str, n: int = 28) -> str:
    s = printable(s)
    return repr(s if len(s) <= n else s[: n - 1] + "\u2026")


def summarize(obj: dict[str, Any]) -> str:
    """What one chunk (or error frame) carried, in a few words: ``content 'Hi', finish stop``."""
    err = obj.get("error")
    if err:
        msg = err.get("message") if isinstance(err, dict) else err
        return f"error {_short(str(msg), 40)}"
    parts: list[str] = []
    choices = obj.get("choices")
    if isinstance(choices, list):
        many = len(choices) > 1
        for ch in choices:
            if not isinstance(ch, dict):
                continue
            pre = f"[{printable(str(ch.get('index')))}] " if many else ""
            delta = ch.get("delta")
            if isinstance(delta, dict):
                for key in ("role", "content", "reasoning_content", "reasoning", "refusal"):
                    v = delta.get(key)
                    if isinstance(v, str) and (v or (key == "content" and not parts)):
                        parts.append(f"{pre}{key} {_short(v) if key != 'role' else printable(v)}")
                calls = delta.get("tool_calls")
                if isinstance(calls, list):
                    for tc in calls:
                        if isinstance(tc, dict):
                            parts.append(pre + _call_summary(tc))
                if not delta and ch.get("finish_reason") is None:
                    parts.append(f"{pre}empty delta")
            fr = ch.get("finish_reason")
            if fr is not None:
                parts.append(f"{pre}finish {printable(str(fr))}")
    usage = obj.get("usage")
    if isinstance(usage, dict):
        counts = f"{usage.get('prompt_tokens')}+{usage.get('completion_tokens')}"
        parts.append(f"usage {printable(counts)}")
    if not parts:
        keys = ", ".join(printable(str(k)) for k in list(obj)[:6])
        return f"(no delta; keys: {keys})" if keys else "(empty object)"
    return ", ".join(parts)


def _call_summary(tc: dict[str, Any]) -> str:
    bits = [f"call[{tc.get('index', '?')}]"]
    if tc.get("id"):
        bits.append(f"id {printable(str(tc['id']))}")
    fn = tc.get("function")
    if isinstance(fn, dict):
        if fn.get("name"):
            bits.append(f"name {printable(str(fn['name']))}")
        args = fn.get("arguments")
        if isinstance(args, str) and args:
            bits.append(f"args +{_short(args, 20)}")
    return " ".join(bits)


#: Where a chat delta carries reasoning (OpenRouter's, DeepSeek's, LiteLLM's words).
REASONING_KEYS = frozenset({"reasoning_content", "reasoning", "reasoning_details",
                            "thinking_blocks"})  # fmt: skip


class ChatWire(Wire):
    endpoint, dialect, grammar = "chat", "openai", "chat"
    finish_field = "finish_reason"
    usage_names: ClassVar[dict[str, str | None]] = {
        "cached_tokens": "prompt_tokens_details.cached_tokens"
    }
    agent = "OpenCode and Qwen Code"
    #: a chat client's own, where a scenario asks for thinking (neither agent does)
    reasoning_request: ClassVar[dict[str, Any]] = {"reasoning_effort": "medium"}
    history_marks = (b'"tool"', b'"tool_calls"')
    returning_marks = (b"ignature", b"encrypted", b'"tool"')
    state_marks = ("signature", "encrypted", "thinking_blocks")
    loose_state = False  # its carriers are parsed where they stand

    carries = frozenset(
        {"max_output_tokens", "temperature", "top_p", "stop", "tool_choice",
         "parallel_tool_calls", "structured_output", "reasoning", "reasoning_effort",
         "reasoning_budget", "cache_markers", "prompt_cache_key", "stream_usage", "user",
         "metadata", "service_tier"}
    )  # fmt: skip

    def read_request(self, obj: dict[str, Any], headers: dict[str, str]) -> Asked:
        """Chat's words: ``max_completion_tokens`` (or the older ``max_tokens``),
        ``tool_choice`` as a string or a named function, ``response_format``,
        ``reasoning_effort`` (or OpenRouter's ``reasoning`` object), ``cache_control`` on
        content parts and tools (the extension OpenRouter and LiteLLM take),
        ``stream_options.include_usage``."""
        out: Asked = {}
        for key in ("max_completion_tokens", "max_tokens"):
            if number(obj.get(key)) is not None:
                said_number(out, "max_output_tokens", obj[key], key)
                break
        said_number(out, "temperature", obj.get("temperature"), "temperature")
        said_number(out, "top_p", obj.get("top_p"), "top_p")
        stop_of(out, obj.get("stop"), "stop")
        choice = obj.get("tool_choice")
        if isinstance(choice, str):
            out["tool_choice"] = Said(choice, f"tool_choice {choice!r}")
        elif isinstance(choice, dict):
            name = as_dict(choice.get("function")).get("name")
            out["tool_choice"] = Said(f"tool:{name}", f"tool_choice function {name!r}")
        parallel = flag(obj.get("parallel_tool_calls"))
        if parallel is not None:
            out["parallel_tool_calls"] = Said(parallel, f"parallel_tool_calls {parallel}")
        structured(out, obj.get("response_format"), "response_format")
        effort = text(obj.get("reasoning_effort"))
        if effort is not None:
            out["reasoning"] = Said(effort != "none", f"reasoning_effort {effort!r}")
            out["reasoning_effort"] = Said(effort, f"reasoning_effort {effort!r}")
        self._openrouter_reasoning(out, obj.get("reasoning"))
        tools = obj.get("tools")
        cache_markers(out, messages_places(obj.get("messages")) + blocks_of(tools, "tools"))
        said_text(out, "prompt_cache_key", obj.get("prompt_cache_key"), "prompt_cache_key")
        usage = flag(as_dict(obj.get("stream_options")).get("include_usage"))
        if usage is not None:
            out["stream_usage"] = Said(usage, f"stream_options.include_usage {usage}")
        said_text(out, "user", obj.get("user"), "user")
        metadata_of(out, obj.get("metadata"), "metadata")
        said_text(out, "service_tier", obj.get("service_tier"), "service_tier")
        return out

    @staticmethod
    def _openrouter_reasoning(out: Asked, value: Any) -> None:
        """OpenRouter's ``reasoning`` object: ``enabled``, ``effort``, ``max_tokens``."""
        if not isinstance(value, dict):
            return
        effort, budget = text(value.get("effort")), number(value.get("max_tokens"))
        enabled = flag(value.get("enabled"))
        on = enabled if enabled is not None else effort != "none"
        out["reasoning"] = Said(on, f"reasoning {json.dumps(value, sort_keys=True)}")
        if effort is not None:
            out["reasoning_effort"] = Said(effort, f"reasoning.effort {effort!r}")
        if budget is not None:
            out["reasoning_budget"] = Said(budget, f"reasoning.max_tokens {budget:g}")

    def request_body(
        self, model: str, prompt: str, tools: list[str] | None, about: str
    ) -> dict[str, Any]:
        """As OpenCode and Qwen Code ask: ``max_tokens``, ``tool_choice`` where tools are
        declared, the usage at the end of the stream."""
        body: dict[str, Any] = {"model": model, "max_tokens": 32000, "stream": True}
        body["messages"] = [{"role": "user", "content": prompt}]
        if tools is not None:
            body["tools"] = [
                {
                    "type": "function",
                    "function": {"name": n, "description": about, "parameters": ANY_OBJECT},
                }
                for n in tools
            ]
            body["tool_choice"] = "auto"
        body["stream_options"] = {"include_usage": True}
        return body

    def ask_cache(self, body: dict[str, Any]) -> None:
        """A breakpoint on the last user message, in a ``cache_control`` part: the word
        LiteLLM, Portkey and OpenRouter take to Anthropic's prompt cache."""
        users = [m for m in as_list(body.get("messages")) if as_dict(m).get("role") == "user"]
        if not users:
            return
        last = users[-1]
        content = last.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
        if isinstance(parts, list) and parts and isinstance(parts[-1], dict):
            parts[-1] = {**parts[-1], "cache_control": {"type": "ephemeral"}}
            last["content"] = parts

    def fit(self, body: dict[str, Any], own: dict[str, Any]) -> None:
        """A scenario's own ``max_completion_tokens`` stands alone (the agent's ``max_tokens``
        beside it would be a second, older word for the same limit)."""
        if "max_completion_tokens" in own and "max_tokens" not in own:
            body.pop("max_tokens", None)

    def fold(self, events: Iterable[tuple[str | None, Any]]) -> Whole:
        r = Reassembler()
        first: dict[str, Any] = {}
        for _, data in events:
            if data == "[DONE]":
                r.feed_event("[DONE]")
            elif isinstance(data, dict):
                if not first and data.get("choices") and "error" not in data:
                    first = data  # Azure's first chunk (prompt filters) has no choices
                r.feed_obj(data)
        if r.error is not None:
            return self.error_answer(r.error)
        if not r.choices or not all(c.finish_reason for c in r.choices.values()):
            return NO_ANSWER
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
        return Whole(200, dumps(answer))

    def unthinking(self) -> EventFilter:
        """Without the reasoning in its deltas (``reasoning_content``, ``reasoning``,
        ``reasoning_details``, ``thinking_blocks``); a chunk left with nothing to say (no
        other delta field, no finish, no usage) is left out."""

        def keep(obj: dict[str, Any]) -> dict[str, Any] | None:
            choices = obj.get("choices")
            if not isinstance(choices, list) or not choices:
                return obj
            if not any(set(as_dict(as_dict(c).get("delta"))) & REASONING_KEYS for c in choices):
                return obj
            out, said = [], obj.get("usage") is not None
            for choice in choices:
                delta = as_dict(as_dict(choice).get("delta"))
                if not set(delta) & REASONING_KEYS:
                    out.append(choice)
                    said = True
                    continue
                rest = {k: v for k, v in delta.items() if k not in REASONING_KEYS}
                said = said or any(v not in (None, "") for v in rest.values())
                said = said or as_dict(choice).get("finish_reason") is not None
                out.append({**choice, "delta": rest})
            return {**obj, "choices": out} if said else None

        return keep

    def error_answer(self, err: Any) -> Whole:
        return openai_error_answer(err)

    request_fields = frozenset(
        {"model", "messages", "stream", "stream_options", "max_tokens"}
        | {"max_completion_tokens", "temperature", "top_p", "n", "stop", "presence_penalty"}
        | {"frequency_penalty", "logit_bias", "logprobs", "top_logprobs", "user", "seed"}
        | {"tools", "tool_choice", "parallel_tool_calls", "response_format", "metadata"}
        | {"reasoning_effort", "service_tier", "store", "modalities", "audio", "prediction"}
        | {"web_search_options", "verbosity", "prompt_cache_key", "prompt_cache_retention"}
        | {"safety_identifier", "functions", "function_call"}
    )

    def unknown_fields(self, names: list[str]) -> Refusal | None:
        """OpenAI's chat refuses the first argument it does not know, in these words (seen
        for ``thinking``, ``top_k``, ``enable_thinking``; no param, no code)."""
        return openai_error(f"Unrecognized request argument supplied: {names[0]}", None)

    def refuse(self, obj: dict[str, Any]) -> Refusal | None:
        """What OpenAI refuses of a reasoning model's chat request, in its words: the old
        ``max_tokens`` (it takes ``max_completion_tokens``), a ``temperature`` other than 1
        (the GPT-5.1 family takes one with ``reasoning_effort`` none)."""
        model = obj.get("model")
        if not isinstance(model, str) or not OPENAI_REASONING.search(model):
            return None
        if "max_tokens" in obj:
            return openai_error(
                "Unsupported parameter: 'max_tokens' is not supported with this model. "
                "Use 'max_completion_tokens' instead.",
                "unsupported_parameter",
                "max_tokens",
            )
        temperature = number(obj.get("temperature"))
        if temperature not in (None, 1) and fixed_temperature(model, obj.get("reasoning_effort")):
            said = json.dumps(obj["temperature"])
            return openai_error(
                f"Unsupported value: 'temperature' does not support {said} with this model. "
                "Only the default (1) value is supported.",
                "unsupported_value",
                "temperature",
            )
        return None

    def check_history(self, obj: dict[str, Any], issued: Issued) -> Refusal | None:
        messages = obj.get("messages")
        if not isinstance(messages, list):
            return None
        #: the calls of the last assistant message not answered yet, in order (a dict: each
        #: answer removes its call at once, however many calls a message has)
        waiting: dict[str, None] = {}
        called: set[str] = set()
        for i, m in enumerate(messages):
            if not isinstance(m, dict):
                continue
            role = m.get("role")
            if role == "tool":
                answers = m.get("tool_call_id")
                if not isinstance(answers, str) or answers not in called:
                    return openai_error(
                        "Invalid parameter: messages with role 'tool' must be a response to a "
                        "preceeding message with 'tool_calls'.",
                        None, f"messages.[{i}].role",
                    )  # fmt: skip
                waiting.pop(answers, None)
                continue
            if waiting:
                return openai_error(
                    "An assistant message with 'tool_calls' must be followed by tool messages "
                    "responding to each 'tool_call_id'. The following tool_call_ids did not "
                    f"have response messages: {', '.join(waiting)}",
                    None, f"messages.[{i}].role",
                )  # fmt: skip
            calls = m.get("tool_calls") if role == "assistant" else None
            ids = (
                [c.get("id") for c in calls if isinstance(c, dict)]
                if isinstance(calls, list)
                else []
            )
            waiting = {c: None for c in ids if isinstance(c, str)}
            called = set(waiting)
        return None

    def tool_results(self, obj: dict[str, Any]) -> int:
        messages = obj.get("messages")
        return sum(
            1
            for m in (messages if isinstance(messages, list) else ())
            if isinstance(m, dict) and m.get("role") == "tool"
        )

    def assistant_turn(self, objs: list[dict[str, Any]]) -> Assistant:
        message: dict[str, Any] = {}
        for obj in objs:
            choices = obj.get("choices")
            for ch in choices if isinstance(choices, list) else ():
                if isinstance(ch, dict) and ch.get("index", 0) == 0:
                    delta = ch.get("delta")
                    if isinstance(delta, dict):
                        _merge(message, delta)
        message = _thawed(message)
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
        self, previous: dict[str, Any], answer: Assistant, text: str, history: str
    ) -> dict[str, Any]:
        body = dict(previous)
        tools = [{"role": "tool", "tool_call_id": c, "content": text} for c in answer.calls]
        body["messages"] = [*as_list(body.get("messages")), *answer.parts, *tools]
        return body

    def carries_token(self, obj: dict[str, Any]) -> bool:
        choices = obj.get("choices")
        for ch in choices if isinstance(choices, list) else ():
            delta = ch.get("delta") if isinstance(ch, dict) else None
            if not isinstance(delta, dict):
                continue
            if any(isinstance(v := delta.get(k), str) and v for k in _OUTPUT):
                return True
            if delta.get("tool_calls"):
                return True
        return False

    def state_reader(self) -> StateReader:
        return _CarrierState()

    def label(self, obj: dict[str, Any]) -> tuple[str, bool]:
        choices = obj.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], dict):
            ch = choices[0]
            d = ch.get("delta")
            delta: dict[str, Any] = d if isinstance(d, dict) else {}
            keys = [k for k in _LABEL_ORDER if delta.get(k)]
            if keys:
                return "delta " + "+".join(keys), True
            if ch.get("finish_reason"):
                return f"finish {ch['finish_reason']}"[:40], False
            return ("role" if delta.get("role") else "chunk"), False
        if isinstance(choices, list) and obj.get("usage"):
            return "usage", False
        return "chunk", False


CHAT = ChatWire()
