"""The Anthropic Messages wire (``/v1/messages``; the dialect ``anthropic``).

A stream is typed events: ``message_start``, per content block ``content_block_start`` /
``content_block_delta`` (``text_delta``, ``thinking_delta``, ``signature_delta``,
``input_json_delta``, ``citations_delta``) / ``content_block_stop``, ``message_delta`` (the
stop reason, cumulative usage), ``message_stop``; ``ping`` and ``error`` at any time.

- **whole**: the message as anthropic-sdk's accumulator folds the stream; an ``error`` event
  becomes the HTTP error its type implies.
- **history**: each ``thinking`` block's ``signature`` and each ``redacted_thinking``
  block's ``data`` were issued, a thinking block's text the very text its signature was issued
  with (the signature signs it); with thinking on, a final assistant turn that calls a tool
  starts with a thinking block; each ``tool_result`` answers a ``tool_use`` of the turn before
  it, and each ``tool_use`` is answered in the next message.
- **next turn** (Claude Code): the assistant message with every block as it arrived -
  ``thinking`` with its ``signature``, ``redacted_thinking`` with its ``data``, ``text``,
  ``tool_use`` (input parsed from its ``input_json_delta`` pieces) - then a user message of
  ``tool_result`` blocks.
- **state**: a ``thinking`` block's ``signature`` (its start and ``signature_delta`` events),
  a ``redacted_thinking`` block's ``data``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any, ClassVar

import orjson

from sseconform.safetext import printable
from sseconform.wires.base import (
    ANY_OBJECT,
    MAX_BYTES,
    MAX_PIECES,
    NO_ANSWER,
    Add,
    Asked,
    Assistant,
    EventFilter,
    Issued,
    PartsView,
    Refusal,
    Renumbered,
    Said,
    StateReader,
    Whole,
    Wire,
    as_dict,
    as_list,
    blocks_of,
    cache_markers,
    dumps,
    events,
    features_of,
    flag,
    json_or_empty,
    messages_places,
    number,
    said_number,
    said_text,
    stop_of,
    structured,
    text,
)

__all__ = ["MESSAGES", "MessagesWire", "accumulate", "stop_reason"]

# the HTTP status Anthropic answers with for the failure its stream reported in-band
_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}
#: a chat finish_reason as Anthropic says it
_STOP = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}


def stop_reason(reason: str) -> str:
    """The ``stop_reason`` a chat ``finish_reason`` is written as."""
    return _STOP.get(reason, "end_turn")


#: The delta kinds whose pieces are joined, and the block key they join into.
_JOINED = {"text_delta": "text", "thinking_delta": "thinking", "input_json_delta": "partial_json"}


def accumulate(block: dict[str, Any], delta: dict[str, Any], pieces: dict[str, list[str]]) -> None:
    """One block delta folded in, as anthropic-sdk's message accumulator folds it: text,
    thinking and input pieces kept in ``pieces`` (joined once, by :func:`settle`: linear in
    the stream however many deltas it has). A delta's value that is no string is nothing."""
    kind = delta.get("type")
    joined = _JOINED.get(kind) if isinstance(kind, str) else None
    if joined is not None:
        pieces.setdefault(joined, []).append(_str(delta.get(joined)))
    elif kind == "signature_delta":
        block["signature"] = _str(delta.get("signature"))
    elif kind == "citations_delta" and "citation" in delta:
        cited = block.get("citations")
        if not isinstance(cited, list):
            block["citations"] = cited = []
        cited.append(delta["citation"])


def settle(block: dict[str, Any], pieces: dict[str, list[str]]) -> None:
    """A block's pieces joined into it: its text and thinking after what its start held (a
    start's ``"thinking": null`` is empty), a tool call's input parsed from its JSON."""
    for key in ("text", "thinking"):
        if key in pieces:
            block[key] = _str(block.get(key)) + "".join(pieces[key])
    if "partial_json" in pieces and block.get("type") in ("tool_use", "server_tool_use"):
        block["input"] = json_or_empty("".join(pieces["partial_json"]))


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


#: The fewest thinking tokens Anthropic takes.
MIN_BUDGET = 1024

#: What Anthropic refuses in a request with thinking on, each with its own words (a 400
#: ``invalid_request_error``), in the order it checks them: the replay upstream refuses
#: with them (:meth:`MessagesWire.refuse`), the built-in request steers clear of them
#: (:meth:`MessagesWire.fit`).
THINKING_CLASHES: dict[str, str] = {
    "budget-missing": "thinking.enabled.budget_tokens: Field required",
    "budget-too-small": (
        "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
    ),
    "budget-not-under-max-tokens": (
        "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
        "documentation at https://docs.claude.com/en/docs/build-with-claude/"
        "extended-thinking#max-tokens-and-context-window-size"
    ),
    "temperature-not-1": (
        "`temperature` may only be set to 1 when thinking is enabled. Please consult "
        "our documentation at https://docs.claude.com/en/docs/build-with-claude/"
        "extended-thinking#feature-compatibility"
    ),
    "forced-tool": "Thinking may not be enabled when tool_choice forces tool use.",
}


def thinking_clashes(obj: dict[str, Any]) -> list[str]:
    """Which of :data:`THINKING_CLASHES` a request (parsed) runs into: none without
    thinking on."""
    thinking = as_dict(obj.get("thinking"))
    if thinking.get("type") != "enabled":
        return []
    budget, most = number(thinking.get("budget_tokens")), number(obj.get("max_tokens"))
    temperature = number(obj.get("temperature"))
    found = {
        "budget-missing": budget is None,
        "budget-too-small": budget is not None and budget < MIN_BUDGET,
        "budget-not-under-max-tokens": (budget is not None and most is not None and most <= budget),
        "temperature-not-1": temperature is not None and temperature != 1,
        "forced-tool": as_dict(obj.get("tool_choice")).get("type") in ("any", "tool"),
    }
    return [name for name in THINKING_CLASHES if found[name]]


#: Where a usage counts what the prompt cache read and wrote (beside ``input_tokens``).
CACHE_COUNTS = ("cache_read_input_tokens", "cache_creation_input_tokens")


def _uncached(usage: dict[str, Any]) -> dict[str, Any]:
    """``usage`` of a prompt read whole (``usage`` itself when it counts no cache): the
    cache's reads and writes added to ``input_tokens`` (where it is given), each cache
    count and the per-TTL split of the writes 0."""
    cached = sum(usage[k] for k in CACHE_COUNTS if _count(usage.get(k)))
    if not cached:
        return usage
    new = {**usage, **{k: 0 for k in CACHE_COUNTS if k in usage}}
    if _count(usage.get("input_tokens")):
        new["input_tokens"] = usage["input_tokens"] + cached
    split = usage.get("cache_creation")
    if isinstance(split, dict):
        new["cache_creation"] = {k: 0 if _count(v) else v for k, v in split.items()}
    return new


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _refuse(message: str) -> Refusal:
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
    return Refusal(400, json.dumps(body).encode(), message)


def _unanswered(i: int, ids: set[str]) -> Refusal:
    return _refuse(
        f"messages.{i}: `tool_use` ids were found without `tool_result` blocks immediately "
        f"after: {', '.join(sorted(ids))}. Each `tool_use` block must have a corresponding "
        "`tool_result` block in the next message."
    )


#: What Claude Code sends that a gateway must carry (its prompt apart): a cache breakpoint's
#: marker, its user id (a JSON string of ids), the beta features it turns on.
EPHEMERAL = {"type": "ephemeral"}
#: The blocks a request without thinking does not get.
THINKING_BLOCKS = ("thinking", "redacted_thinking")
AGENT_IDENTITY = "You are the sseconform gate, asking as Claude Code asks."
AGENT_SYSTEM = "Answer the user's message; call a tool where one is declared."
AGENT_USER = '{"device_id":"sseconform-gate","account_uuid":"","session_id":"sseconform-gate"}'
AGENT_BETAS = (
    "claude-code-20250219",
    "interleaved-thinking-2025-05-14",
    "context-management-2025-06-27",
    "thinking-token-count-2026-05-13",
    "advanced-tool-use-2025-11-20",
    "thinking-display-updates-2026-08-18",
)


class _Signature:
    """A thinking block's signature as it streams in: its pieces (joined once, at the end),
    bounded by the state's own bound (past it, the rest is not kept)."""

    __slots__ = ("frame", "offset", "ordinal", "pieces", "size")

    def __init__(self, ordinal: int, frame: int, offset: int) -> None:
        self.ordinal, self.frame, self.offset = ordinal, frame, offset
        self.pieces: list[str] = []
        self.size = 0

    def grow(self, piece: str, frame: int, offset: int) -> None:
        self.frame, self.offset = frame, offset
        if len(self.pieces) < MAX_PIECES and self.size + len(piece) <= MAX_BYTES:
            self.pieces.append(piece)
            self.size += len(piece)

    def close(self, add: Add) -> None:
        if self.size:
            sig = "".join(self.pieces)
            add("signature", f"thinking block {self.ordinal}", sig, self.frame, self.offset)


class _BlockState(StateReader):
    """Open thinking blocks, by stream index."""

    def __init__(self) -> None:
        self.open: dict[int, _Signature] = {}
        self.blocks = 0  # thinking blocks seen, in order
        self.redacted = 0

    def wants(self, data: str) -> bool:
        return bool(self.open) and "content_block_stop" in data

    def _opened(self, index: int, frame: int, offset: int) -> _Signature:
        self.open[index] = opened = _Signature(self.blocks, frame, offset)
        self.blocks += 1
        return opened

    def feed(self, obj: dict[str, Any], frame: int, offset: int, add: Add) -> None:
        kind = obj.get("type")
        index = obj.get("index")
        if not isinstance(index, int):
            return
        if kind == "content_block_start":
            block = obj.get("content_block")
            if not isinstance(block, dict):
                return
            if block.get("type") == "thinking":
                sig = block.get("signature")
                opened = self._opened(index, frame, offset)
                if isinstance(sig, str) and sig:
                    opened.grow(sig, frame, offset)
            elif block.get("type") == "redacted_thinking" and isinstance(block.get("data"), str):
                owner = f"redacted thinking block {self.redacted}"
                self.redacted += 1
                add("redacted-thinking", owner, block["data"], frame, offset)
        elif kind == "content_block_delta":
            delta = obj.get("delta")
            if isinstance(delta, dict) and delta.get("type") == "signature_delta":
                sig = delta.get("signature")
                # a block started without its signature field opens here
                opened = self.open.get(index) or self._opened(index, frame, offset)
                if isinstance(sig, str) and sig:
                    opened.grow(sig, frame, offset)
        elif kind == "content_block_stop" and index in self.open:
            self.open.pop(index).close(add)

    def finish(self, add: Add) -> None:
        for opened in list(self.open.values()):
            opened.close(add)
        self.open.clear()


class MessagesWire(Wire):
    endpoint, dialect, grammar = "messages", "anthropic", "anthropic"
    finish_field = "stop_reason"
    usage_names: ClassVar[dict[str, str | None]] = {
        "prompt_tokens": "input_tokens",
        "completion_tokens": "output_tokens",
        "total_tokens": None,  # Anthropic reports no total
        "cached_tokens": "cache_read_input_tokens",  # beside input_tokens, not in it
    }
    agent = "Claude Code"
    #: Claude Code's thinking on every request: its default budget, just under its
    #: ``max_tokens`` (which must stay above it)
    reasoning_request: ClassVar[dict[str, Any]] = {
        "max_tokens": 32000,
        "thinking": {"type": "enabled", "budget_tokens": 31999},
    }
    agent_reasons = True
    thinks_unasked = False
    history_marks = (b'"assistant"', b'"tool_result"')
    returning_marks = (b"ignature", b"redacted_thinking", b"tool_result")
    state_marks = ("signature", "redacted_thinking")
    native_word = "blocks"

    # -- a request ---------------------------------------------------------------------------

    carries = frozenset(
        {"max_output_tokens", "temperature", "top_p", "top_k", "stop", "tool_choice",
         "parallel_tool_calls", "structured_output", "reasoning", "reasoning_budget",
         "reasoning_effort", "cache_markers", "user", "service_tier", "features"}
    )  # fmt: skip
    requires = frozenset({"max_output_tokens"})

    def read_request(self, obj: dict[str, Any], headers: dict[str, str]) -> Asked:
        """Messages' words: ``max_tokens``, ``stop_sequences``, ``tool_choice`` by ``type``
        (``any`` is required; ``disable_parallel_tool_use``), ``thinking``, the structured
        output and effort of ``output_format`` / ``output_config``, ``cache_control`` on
        system blocks, tools and message blocks, ``metadata.user_id``, the
        ``anthropic-beta`` header."""
        out: Asked = {}
        said_number(out, "max_output_tokens", obj.get("max_tokens"), "max_tokens")
        for key in ("temperature", "top_p", "top_k"):
            said_number(out, key, obj.get(key), key)
        stop_of(out, obj.get("stop_sequences"), "stop_sequences")
        choice = as_dict(obj.get("tool_choice"))
        kind = text(choice.get("type"))
        if kind is not None:
            meant = {"any": "required"}.get(kind, kind)
            if kind == "tool":
                meant = f"tool:{choice.get('name')}"
            out["tool_choice"] = Said(meant, f"tool_choice {json.dumps(choice)}")
        disable = flag(choice.get("disable_parallel_tool_use"))
        if disable is not None:
            words = f"tool_choice.disable_parallel_tool_use {str(disable).lower()}"
            out["parallel_tool_calls"] = Said(not disable, words)
        self._thinking(out, obj.get("thinking"))
        config = as_dict(obj.get("output_config"))
        for key, fmt in (("output_format", obj.get("output_format")),
                         ("output_config.format", config.get("format"))):  # fmt: skip
            structured(out, fmt, key)
        said_text(out, "reasoning_effort", config.get("effort"), "output_config.effort")
        places = blocks_of(obj.get("system"), "system") + blocks_of(obj.get("tools"), "tools")
        cache_markers(out, places + messages_places(obj.get("messages")))
        user = as_dict(obj.get("metadata")).get("user_id")
        said_text(out, "user", user, "metadata.user_id")
        said_text(out, "service_tier", obj.get("service_tier"), "service_tier")
        features_of(out, headers, "anthropic-beta")
        return out

    @staticmethod
    def _thinking(out: Asked, value: Any) -> None:
        thinking = as_dict(value)
        kind = text(thinking.get("type"))
        if kind is None:
            return
        out["reasoning"] = Said(kind != "disabled", f"thinking {json.dumps(thinking)}")
        budget = number(thinking.get("budget_tokens"))
        if budget is not None and kind != "disabled":
            out["reasoning_budget"] = Said(budget, f"thinking.budget_tokens {budget:g}")

    def request_body(
        self, model: str, prompt: str, tools: list[str] | None, about: str
    ) -> dict[str, Any]:
        """As Claude Code asks: ``max_tokens`` (Messages needs one), the system prompt as
        blocks, cache breakpoints on the system prompt and the last user block, the user's
        id in ``metadata``; usage always streams."""
        body: dict[str, Any] = {"model": model, "stream": True, "max_tokens": 32000}
        body["system"] = [
            {"type": "text", "text": AGENT_IDENTITY, "cache_control": EPHEMERAL},
            {"type": "text", "text": AGENT_SYSTEM, "cache_control": EPHEMERAL},
        ]
        content = [{"type": "text", "text": prompt, "cache_control": EPHEMERAL}]
        body["messages"] = [{"role": "user", "content": content}]
        if tools is not None:
            body["tools"] = [
                {"name": n, "description": about, "input_schema": ANY_OBJECT} for n in tools
            ]
        body["metadata"] = {"user_id": AGENT_USER}
        return body

    def unthinking(self) -> EventFilter:
        """Without its thinking and redacted thinking blocks; the blocks after them
        renumbered from 0 as Anthropic numbers the blocks it sends."""
        positions = Renumbered()

        def keep(obj: dict[str, Any]) -> dict[str, Any] | None:
            index = obj.get("index")
            if not isinstance(index, int) or isinstance(index, bool):
                return obj
            block = as_dict(obj.get("content_block"))
            if obj.get("type") == "content_block_start" and block.get("type") in THINKING_BLOCKS:
                positions.drop(index)
            moved = positions(index)
            if moved is None:
                return None
            return {**obj, "index": moved} if moved != index else obj

        return keep

    def reads_cache(self, asked: Asked) -> bool:
        """Only up to a breakpoint: a request without ``cache_control`` reads nothing from
        the cache and writes nothing to it."""
        return "cache_markers" in asked

    def uncaching(self) -> EventFilter:
        """The usage of ``message_start`` and ``message_delta`` as Anthropic counts a prompt
        it did not cache: the cache's reads and writes counted as input, none of either."""

        def keep(obj: dict[str, Any]) -> dict[str, Any] | None:
            kind = obj.get("type")
            if kind == "message_start":
                message = as_dict(obj.get("message"))
                usage = as_dict(message.get("usage"))
                new = _uncached(usage)
                return obj if new is usage else {**obj, "message": {**message, "usage": new}}
            if kind == "message_delta":
                usage = as_dict(obj.get("usage"))
                new = _uncached(usage)
                return obj if new is usage else {**obj, "usage": new}
            return obj

        return keep

    def fit(self, body: dict[str, Any], own: dict[str, Any]) -> None:
        """The agent's thinking made to fit the request's other settings, as Claude Code
        does (what clashes: :func:`thinking_clashes`): a ``max_tokens`` at or under its
        budget brings the budget under it (thinking left out where no budget Anthropic
        takes fits); any other clash (a ``temperature`` other than 1, a forced tool) leaves
        thinking out. A scenario that sets ``thinking`` itself gets it as it is."""
        if "thinking" in own or not isinstance(body.get("thinking"), dict):
            return
        clashes = thinking_clashes(body)
        most = number(body.get("max_tokens"))
        if clashes == ["budget-not-under-max-tokens"] and most is not None and most > MIN_BUDGET:
            body["thinking"] = {**body["thinking"], "budget_tokens": int(most) - 1}
        elif clashes:
            body.pop("thinking")

    def client_headers(self, key: str | None) -> list[tuple[str, str]]:
        """As Claude Code sends it: the version, its beta features, the key."""
        out = [*super().client_headers(key), ("anthropic-version", "2023-06-01")]
        out.append(("anthropic-beta", ",".join(AGENT_BETAS)))
        return [*out, ("x-api-key", key)] if key else out

    # -- whole -------------------------------------------------------------------------------

    def fold(self, events: Iterable[tuple[str | None, Any]]) -> Whole:
        message: dict[str, Any] | None = None
        blocks: dict[int, dict[str, Any]] = {}
        pieces: dict[int, dict[str, list[str]]] = {}
        for _, data in events:
            if not isinstance(data, dict):
                continue
            kind = data.get("type")
            if kind == "error":
                return self.error_answer(data.get("error"))
            if kind == "message_start" and isinstance(data.get("message"), dict):
                message = dict(data["message"])
                message["content"] = []
            elif kind == "content_block_start" and isinstance(data.get("content_block"), dict):
                blocks[data.get("index", len(blocks))] = dict(data["content_block"])
            elif kind == "content_block_delta" and isinstance(data.get("delta"), dict):
                block = blocks.get(data.get("index", -1))
                if block is not None:
                    accumulate(block, data["delta"], pieces.setdefault(data["index"], {}))
            elif kind == "message_delta" and message is not None:
                delta: dict[str, Any] = as_dict(data.get("delta"))
                message.update(
                    {k: v for k, v in delta.items() if k in ("stop_reason", "stop_sequence")}
                )
                if isinstance(data.get("usage"), dict):
                    usage = dict(as_dict(message.get("usage")))
                    usage.update({k: v for k, v in data["usage"].items() if v is not None})
                    message["usage"] = usage
            elif kind == "message_stop" and message is not None:
                for i in sorted(blocks):
                    settle(blocks[i], pieces.get(i, {}))
                    message["content"].append(blocks[i])
                return Whole(200, dumps(message))
        return NO_ANSWER

    def error_answer(self, err: Any) -> Whole:
        err = err if isinstance(err, dict) else {"message": str(err)}
        status = _STATUS.get(str(err.get("type")), 500)
        return Whole(status, dumps({"type": "error", "error": err}))

    # -- a conversation ----------------------------------------------------------------------

    def check_history(self, obj: dict[str, Any], issued: Issued) -> Refusal | None:
        messages = obj.get("messages")
        if not isinstance(messages, list):
            return None
        thinking_on = isinstance(obj.get("thinking"), dict) and obj["thinking"].get("type") in (
            "enabled", "adaptive",
        )  # fmt: skip
        last_assistant = max(
            (
                i
                for i, m in enumerate(messages)
                if isinstance(m, dict) and m.get("role") == "assistant"
            ),
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
                refused = self._block(b, f"messages.{i}.content.{j}", issued, calls_before)
                if refused is not None:
                    return refused
                if b.get("type") == "tool_use" and isinstance(b.get("id"), str):
                    calls.add(b["id"])
            answered = {_str(b.get("tool_use_id")) for b in blocks if isinstance(b, dict)}
            if calls_before - answered:  # a result of another id was refused above
                return _unanswered(i - 1, calls_before - answered)
            if i == last_assistant and thinking_on and calls and blocks:
                first = blocks[0].get("type") if isinstance(blocks[0], dict) else None
                if first not in ("thinking", "redacted_thinking"):
                    return _refuse(
                        f"messages.{i}.content.0.type: Expected `thinking` or "
                        f"`redacted_thinking`, but found `{first}`. When `thinking` is "
                        "enabled, a final `assistant` message must start with a thinking block."
                    )
            calls_before = calls
        return None

    @staticmethod
    def _block(
        b: dict[str, Any], where: str, issued: Issued, calls_before: set[str]
    ) -> Refusal | None:
        """One block of the history: its state issued, its result answering a call."""
        kind = b.get("type")
        signature = _str(b.get("signature"))
        if kind == "thinking" and (
            signature not in issued.values
            or issued.thinking.get(signature, b.get("thinking")) != b.get("thinking")
        ):
            return _refuse(f"{where}: Invalid `signature` in `thinking` block")
        if kind == "redacted_thinking" and _str(b.get("data")) not in issued.values:
            return _refuse(f"{where}: Invalid `data` in `redacted_thinking` block")
        if kind == "tool_result" and _str(b.get("tool_use_id")) not in calls_before:
            return _refuse(
                f"{where}: unexpected `tool_use_id` found in `tool_result` blocks: "
                f"{b.get('tool_use_id')}. Each `tool_result` block must have a "
                "corresponding `tool_use` block in the previous message."
            )
        return None

    request_fields = frozenset(
        {"model", "messages", "max_tokens", "system", "metadata", "stop_sequences", "stream"}
        | {"temperature", "top_p", "top_k", "tools", "tool_choice", "thinking"}
        | {"service_tier", "container", "mcp_servers", "context_management", "output_config"}
        | {"output_format", "inference_geo"}
    )

    def unknown_fields(self, names: list[str]) -> Refusal | None:
        """Anthropic refuses the first field it has no name for: "NAME: Extra inputs are not
        permitted" (as for ``response_format`` or ``extra_body`` left in by a client)."""
        return _refuse(f"{names[0]}: Extra inputs are not permitted")

    def refuse(self, obj: dict[str, Any]) -> Refusal | None:
        """What Anthropic refuses (400 ``invalid_request_error``, its own words) of a request
        with thinking on: the first of its :func:`thinking_clashes`. (A request without
        ``max_tokens``, which Anthropic refuses too, is still served: the replay upstream
        answers bare test requests.)"""
        clashes = thinking_clashes(obj)
        return _refuse(THINKING_CLASHES[clashes[0]]) if clashes else None

    def issue(self, issued: Issued, body: bytes, data: list[str]) -> None:
        """Each signed thinking block's signature and the text it signs."""
        if b"signature_delta" not in body:
            return
        answer = self.fold(events(body))
        try:
            blocks = orjson.loads(answer.body).get("content") if answer.status == 200 else None
        except (orjson.JSONDecodeError, AttributeError):
            return
        issued.thinking.update(
            {
                b["signature"]: str(b.get("thinking") or "")
                for b in (blocks if isinstance(blocks, list) else ())
                if isinstance(b, dict) and b.get("type") == "thinking" and b.get("signature")
            }
        )

    def tool_results(self, obj: dict[str, Any]) -> int:
        return sum(
            1
            for m in as_list(obj.get("messages"))
            if isinstance(m, dict)
            for b in as_list(m.get("content"))
            if isinstance(b, dict) and b.get("type") == "tool_result"
        )

    def assistant_turn(self, objs: list[dict[str, Any]]) -> Assistant:
        """Blocks folded as anthropic-sdk folds them."""
        blocks: dict[int, dict[str, Any]] = {}
        pieces: dict[int, dict[str, list[str]]] = {}
        for obj in objs:
            kind, index = obj.get("type"), obj.get("index")
            if kind == "content_block_start" and isinstance(index, int):
                block = obj.get("content_block")
                if isinstance(block, dict) and index not in blocks:
                    blocks[index] = block
            elif kind == "content_block_delta" and isinstance(index, int) and index in blocks:
                delta = obj.get("delta")
                if isinstance(delta, dict):
                    accumulate(blocks[index], delta, pieces.setdefault(index, {}))
        out = Assistant()
        for index in sorted(blocks):
            block = blocks[index]
            joined = pieces.get(index, {})
            raw = joined.pop("partial_json", None)
            settle(block, joined)
            kind = block.get("type")
            if kind == "thinking":
                out.parts.append(
                    {"type": "thinking", "thinking": _str(block.get("thinking")),
                     "signature": _str(block.get("signature"))}
                )  # fmt: skip
            elif kind == "redacted_thinking":
                out.parts.append({"type": "redacted_thinking", "data": _str(block.get("data"))})
            elif kind == "text":
                if _str(block.get("text")):
                    out.parts.append({"type": "text", "text": block["text"]})
            elif kind == "tool_use":
                args = json_or_empty("".join(raw)) if raw else block.get("input") or {}
                cid = str(block.get("id") or "")
                out.parts.append(
                    {"type": "tool_use", "id": cid, "name": block.get("name"), "input": args}
                )
                out.calls.append(cid)
        return out

    def next_body(
        self, previous: dict[str, Any], answer: Assistant, text: str, history: str
    ) -> dict[str, Any]:
        body = dict(previous)
        results = [{"type": "tool_result", "tool_use_id": c, "content": text} for c in answer.calls]
        body["messages"] = [
            *as_list(body.get("messages")),
            {"role": "assistant", "content": answer.parts},
            {"role": "user", "content": results},
        ]
        return body

    # -- a stream, event by event ------------------------------------------------------------

    def carries_token(self, obj: dict[str, Any]) -> bool:
        return obj.get("type") == "content_block_delta"

    def state_reader(self) -> StateReader:
        return _BlockState()

    def native(self, parts: PartsView, kind: str, obj: dict[str, Any], frame: int) -> None:
        if kind == "content_block_start":
            block = as_dict(obj.get("content_block"))
            parts.open(obj.get("index"), block.get("type"), block.get("name"), frame)
        elif kind == "content_block_delta":
            parts.grow(obj.get("index"), obj.get("delta"))
        elif kind == "content_block_stop":
            part = parts.part(obj.get("index"))
            if part is not None:
                part.state = "closed"
        elif kind == "message_delta":
            delta = obj.get("delta")
            if isinstance(delta, dict) and delta.get("stop_reason"):
                parts.status = f"stop_reason {printable(str(delta['stop_reason']))}"
        elif kind == "message_stop":
            parts.status = (parts.status + ", " if parts.status else "") + "message_stop"
        elif kind == "error":
            parts.status = "error event"

    def finish_word(self, reason: str) -> str:
        return stop_reason(reason)


MESSAGES = MessagesWire()
