"""The OpenAI Responses wire (``/v1/responses``; the dialect ``responses``).

A stream is typed, numbered events: ``response.created``, per output item
``response.output_item.added`` / its parts and ``*.delta`` events / ``.done`` events /
``response.output_item.done``, then a terminal ``response.completed``, ``.incomplete`` or
``.failed`` carrying the whole response; ``error`` at any time.

- **whole**: the terminal event's ``response``; ``response.failed`` or an ``error`` event
  becomes the HTTP error OpenAI answers with.
- **history**: each ``reasoning`` item's ``encrypted_content`` was issued (with ``store:
  false`` an item without it is refused: nothing was stored to read it from); each
  ``function_call_output`` answers a ``function_call`` the input holds (unless the request
  continues a stored response); a ``previous_response_id`` names a response it issued.
- **next turn** (Codex, ``store: false``): the user's message, every output item as its
  ``response.output_item.done`` gave it (a reasoning item with its ``encrypted_content``, the
  ``function_call``), then a ``function_call_output`` per call; with ``previous_response_id``
  (``store: true``) the outputs alone.
- **state**: a ``reasoning`` item's ``encrypted_content`` (``output_item.done``, or
  ``.added`` when the stream ends before it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any, ClassVar

from sseconform.safetext import printable
from sseconform.wires.base import (
    ANY_OBJECT,
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
    dumps,
    features_of,
    fixed_temperature,
    flag,
    metadata_of,
    number,
    openai_error,
    openai_error_answer,
    said_number,
    said_text,
    structured,
    text,
)

__all__ = ["RESPONSES", "TURN_ENDS", "ResponsesWire", "status_of"]

_RESPONSE_ID = re.compile(r'"response"\s*:\s*\{\s*"id"\s*:\s*"([^"]{1,200})"')
_TERMINAL = ("response.completed", "response.incomplete", "response.failed")
#: What ends a Responses turn (over WebSocket, where a turn is not a whole stream): a terminal
#: response event, or an ``error`` event.
TURN_ENDS = frozenset({*_TERMINAL, "error"})
#: The WebSocket mode's own beta flag (the upgrade's, Codex CLI's): the transport, not a model
#: feature a request asks for, so neither lost by a bridge to HTTP nor added by a pipe.
TRANSPORT_BETA = "responses_websockets="


def status_of(reason: str | None) -> tuple[str, str | None]:
    """The terminal ``status`` and ``incomplete_details.reason`` a ``finish_reason`` is
    written as: cut answers are incomplete, the others completed."""
    if reason == "length":
        return "incomplete", "max_output_tokens"
    if reason == "content_filter":
        return "incomplete", "content_filter"
    return "completed", None


class _ItemState(StateReader):
    """Reasoning items announced (output index -> [ordinal, content, frame, offset])."""

    def __init__(self) -> None:
        self.items: dict[int, list[Any]] = {}
        self.reasoning = 0

    def feed(self, obj: dict[str, Any], frame: int, offset: int, add: Add) -> None:
        item = obj.get("item")
        at = obj.get("output_index")
        if not isinstance(item, dict) or item.get("type") != "reasoning" or not isinstance(at, int):
            return
        content = item.get("encrypted_content")
        content = content if isinstance(content, str) else ""
        if obj.get("type") == "response.output_item.added":
            self.items[at] = [self.reasoning, content, frame, offset]
            self.reasoning += 1
        elif obj.get("type") == "response.output_item.done":
            ordinal = self.items.pop(at, [self.reasoning])[0]
            if at not in self.items and ordinal == self.reasoning:
                self.reasoning += 1  # done without added
            if content:
                add("encrypted-content", f"reasoning item {ordinal}", content, frame, offset)

    def finish(self, add: Add) -> None:
        for ordinal, content, frame, offset in list(self.items.values()):
            if content:
                add("encrypted-content", f"reasoning item {ordinal}", content, frame, offset)
        self.items.clear()


#: Codex's system prompt goes in ``instructions``; its cache key is its session's id.
AGENT_INSTRUCTIONS = "You are the sseconform gate, asking as Codex asks."
AGENT_CACHE_KEY = "sseconform-gate-session"


class ResponsesWire(Wire):
    endpoint, dialect, grammar = "responses", "responses", "responses"
    finish_field = "status"
    usage_names: ClassVar[dict[str, str | None]] = {
        "prompt_tokens": "input_tokens",
        "completion_tokens": "output_tokens",
        "total_tokens": "total_tokens",
        "cached_tokens": "input_tokens_details.cached_tokens",
    }
    agent = "Codex CLI"
    #: Codex's on every request (stateless): ``store: false`` and the encrypted reasoning
    #: included
    reasoning_request: ClassVar[dict[str, Any]] = {
        "reasoning": {"effort": "medium"},
        "include": ["reasoning.encrypted_content"],
        "store": False,
    }
    agent_reasons = True
    conversation = "input"
    history_marks = (b'"previous_response_id"', b'"encrypted_content"', b'"function_call_output"')
    returning_marks = (b"encrypted", b"function_call_output")
    state_marks = ("encrypted_content",)
    native_word = "items"

    carries = frozenset(
        {"max_output_tokens", "temperature", "top_p", "tool_choice", "parallel_tool_calls",
         "structured_output", "reasoning", "reasoning_effort", "reasoning_summary",
         "reasoning_included", "prompt_cache_key", "user", "metadata", "service_tier",
         "features"}
    )  # fmt: skip

    def read_request(self, obj: dict[str, Any], headers: dict[str, str]) -> Asked:
        """Responses' words: ``max_output_tokens``, ``tool_choice`` as a string or a named
        function, ``text.format``, ``reasoning`` (``effort``, ``summary``), ``include``
        (``reasoning.encrypted_content``), ``prompt_cache_key``, ``safety_identifier`` (or
        the older ``user``), the ``OpenAI-Beta`` header."""
        out: Asked = {}
        said_number(out, "max_output_tokens", obj.get("max_output_tokens"), "max_output_tokens")
        said_number(out, "temperature", obj.get("temperature"), "temperature")
        said_number(out, "top_p", obj.get("top_p"), "top_p")
        choice = obj.get("tool_choice")
        if isinstance(choice, str):
            out["tool_choice"] = Said(choice, f"tool_choice {choice!r}")
        elif isinstance(choice, dict):
            kind = choice.get("type")
            meant = f"tool:{choice.get('name')}" if kind == "function" else str(kind)
            out["tool_choice"] = Said(meant, f"tool_choice {json.dumps(choice)}")
        parallel = flag(obj.get("parallel_tool_calls"))
        if parallel is not None:
            out["parallel_tool_calls"] = Said(parallel, f"parallel_tool_calls {parallel}")
        structured(out, as_dict(obj.get("text")).get("format"), "text.format")
        reasoning = obj.get("reasoning")
        if isinstance(reasoning, dict):
            effort = text(reasoning.get("effort"))
            words = f"reasoning {json.dumps(reasoning, sort_keys=True)}"
            out["reasoning"] = Said(effort != "none", words)
            said_text(out, "reasoning_effort", effort, "reasoning.effort")
            said_text(out, "reasoning_summary", reasoning.get("summary"), "reasoning.summary")
        include = obj.get("include")
        if isinstance(include, list) and "reasoning.encrypted_content" in include:
            out["reasoning_included"] = Said(True, "include reasoning.encrypted_content")
        said_text(out, "prompt_cache_key", obj.get("prompt_cache_key"), "prompt_cache_key")
        for key in ("safety_identifier", "user"):
            if text(obj.get(key)) is not None:
                said_text(out, "user", obj[key], key)
                break
        metadata_of(out, obj.get("metadata"), "metadata")
        said_text(out, "service_tier", obj.get("service_tier"), "service_tier")
        features_of(out, headers, "openai-beta", transport=TRANSPORT_BETA)
        return out

    def request_body(
        self, model: str, prompt: str, tools: list[str] | None, about: str
    ) -> dict[str, Any]:
        """As Codex asks: ``instructions``, flat function tools with ``tool_choice`` and
        parallel calls, its prompt cache key (``input`` as one string); usage always comes."""
        body: dict[str, Any] = {"model": model, "instructions": AGENT_INSTRUCTIONS}
        body |= {"stream": True, "input": prompt}
        if tools is not None:
            body["tools"] = [
                {"type": "function", "name": n, "description": about, "parameters": ANY_OBJECT}
                for n in tools
            ]
            body |= {"tool_choice": "auto", "parallel_tool_calls": True}
        body["prompt_cache_key"] = AGENT_CACHE_KEY
        return body

    def fold(self, events: Iterable[tuple[str | None, Any]]) -> Whole:
        for _, data in events:
            if not isinstance(data, dict):
                continue
            kind = data.get("type")
            if kind == "error":
                err = {k: data.get(k) for k in ("message", "code", "param")}
                return self.error_answer({**err, "type": "server_error"})
            if kind == "response.failed":
                response = as_dict(data.get("response"))
                return self.error_answer(response.get("error") or {"message": "failed"})
            if kind in ("response.completed", "response.incomplete") and isinstance(
                data.get("response"), dict
            ):
                return Whole(200, dumps(data["response"]))
        return NO_ANSWER

    def unthinking(self) -> EventFilter:
        """Without its reasoning items (and every event of theirs); the items after them
        renumbered (``output_index`` counts items sent), every event's
        ``sequence_number`` too, and the response objects' ``output`` without them."""
        positions = Renumbered()
        seq: list[int] = []  # the first number seen, then how many were sent

        def keep(obj: dict[str, Any]) -> dict[str, Any] | None:
            at = obj.get("output_index")
            if isinstance(at, int) and not isinstance(at, bool):
                if as_dict(obj.get("item")).get("type") == "reasoning":
                    positions.drop(at)
                moved = positions(at)
                if moved is None:
                    return None
                if moved != at:
                    obj = {**obj, "output_index": moved}
            response = obj.get("response")
            if isinstance(response, dict) and isinstance(response.get("output"), list):
                kept = [i for i in response["output"] if as_dict(i).get("type") != "reasoning"]
                if len(kept) < len(response["output"]):
                    obj = {**obj, "response": {**response, "output": kept}}
            n = obj.get("sequence_number")
            if isinstance(n, int) and not isinstance(n, bool):
                if not seq:
                    seq.extend((n, 0))
                if n != seq[0] + seq[1]:
                    obj = {**obj, "sequence_number": seq[0] + seq[1]}
                seq[1] += 1
            return obj

        return keep

    def error_answer(self, err: Any) -> Whole:
        return openai_error_answer(err)

    request_fields = frozenset(
        {"model", "input", "instructions", "stream", "stream_options", "max_output_tokens"}
        | {"temperature", "top_p", "top_logprobs", "tools", "tool_choice", "max_tool_calls"}
        | {"parallel_tool_calls", "reasoning", "text", "store", "include", "metadata"}
        | {"previous_response_id", "conversation", "prompt", "prompt_cache_key", "user"}
        | {"prompt_cache_retention", "service_tier", "truncation", "background"}
        | {"safety_identifier", "context_management"}
    )

    def unknown_fields(self, names: list[str]) -> Refusal | None:
        """The Responses API refuses the first parameter it does not know, naming it."""
        return openai_error(f"Unknown parameter: '{names[0]}'.", "unknown_parameter", names[0])

    def refuse(self, obj: dict[str, Any]) -> Refusal | None:
        """What OpenAI refuses of a reasoning model's Responses request, in its words: a
        ``temperature`` other than 1 (the GPT-5.1 family takes one with effort none)."""
        temperature = number(obj.get("temperature"))
        effort = as_dict(obj.get("reasoning")).get("effort")
        if temperature not in (None, 1) and fixed_temperature(obj.get("model"), effort):
            return openai_error(
                "Unsupported parameter: 'temperature' is not supported with this model.",
                None,
                "temperature",
            )
        return None

    def check_history(self, obj: dict[str, Any], issued: Issued) -> Refusal | None:
        previous = obj.get("previous_response_id")
        if isinstance(previous, str) and previous not in issued.response_ids:
            return openai_error(
                f"Previous response with id '{previous}' not found.",
                "previous_response_not_found",
                "previous_response_id",
            )
        items = obj.get("input")
        if not isinstance(items, list):
            return None
        calls = {
            it["call_id"]
            for it in items
            if isinstance(it, dict)
            and it.get("type") == "function_call"
            and isinstance(it.get("call_id"), str)
        }
        for it in items:
            if not isinstance(it, dict):
                continue
            kind = it.get("type")
            content = it.get("encrypted_content")
            if kind == "reasoning" and content is None and obj.get("store") is False:
                # stateless: the item can only be read from its encrypted content
                return openai_error(
                    f"Item with id '{it.get('id')}' not found. Items are not persisted when "
                    "`store` is set to false. Try again with `store` set to true, or remove "
                    "this item from your input.",
                    None, "input", 404,
                )  # fmt: skip
            if (
                kind == "reasoning"
                and content is not None
                and (not isinstance(content, str) or content not in issued.values)
            ):
                return openai_error(
                    f"The encrypted content for item {it.get('id')} could not be verified.",
                    "invalid_encrypted_content",
                )
            if (
                kind == "function_call_output"
                and previous is None
                and (not isinstance(it.get("call_id"), str) or it["call_id"] not in calls)
            ):
                return openai_error(
                    "No tool call found for function call output with call_id "
                    f"{it.get('call_id')}.",
                    "invalid_request_error",
                    "input",
                )
        return None

    def issue(self, issued: Issued, body: bytes, data: list[str]) -> None:
        """The ids of the responses it created (a later turn may continue one)."""
        for d in data:
            if "response.created" in d:
                issued.response_ids.update(_RESPONSE_ID.findall(d))

    def tool_results(self, obj: dict[str, Any]) -> int:
        items = obj.get("input")
        return sum(
            1
            for it in (items if isinstance(items, list) else ())
            if isinstance(it, dict) and it.get("type") == "function_call_output"
        )

    def assistant_turn(self, objs: list[dict[str, Any]]) -> Assistant:
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

    def next_body(
        self, previous: dict[str, Any], answer: Assistant, text: str, history: str
    ) -> dict[str, Any]:
        body = dict(previous)
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
            kept = earlier if isinstance(earlier, list) else []
            body["input"] = [*kept, *answer.parts, *outputs]
        return body

    def carries_token(self, obj: dict[str, Any]) -> bool:
        kind = obj.get("type")
        return isinstance(kind, str) and kind.startswith("response.") and kind.endswith(".delta")

    def state_reader(self) -> StateReader:
        return _ItemState()

    def native(self, parts: PartsView, kind: str, obj: dict[str, Any], frame: int) -> None:
        if kind == "response.output_item.added":
            item = as_dict(obj.get("item"))
            label = item.get("name") or item.get("id")
            parts.open(obj.get("output_index"), item.get("type"), label, frame)
        elif kind == "response.output_item.done":
            part = parts.part(obj.get("output_index"))
            if part is not None:
                status = as_dict(obj.get("item")).get("status")
                part.state = "incomplete" if status == "incomplete" else "done"
        elif kind.endswith(".delta"):
            parts.grow(obj.get("output_index"), obj.get("delta"))
        elif kind in _TERMINAL:
            parts.status = kind.removeprefix("response.")
            response = obj.get("response")
            details = response.get("incomplete_details") if isinstance(response, dict) else None
            reason = details.get("reason") if isinstance(details, dict) else None
            if isinstance(reason, str):
                parts.status += f" ({printable(reason)})"
        elif kind == "error":
            parts.status = "error event"

    def finish_word(self, reason: str) -> str:
        status, why = status_of(reason)
        return f"{status} ({why})" if why else status


RESPONSES = ResponsesWire()
