"""The Gemini wire (``:streamGenerateContent?alt=sse``; the dialect ``gemini``).

Each event is a whole ``GenerateContentResponse``: ``candidates[].content.parts[]`` (``text``,
``thought: true``, ``functionCall``, ``thoughtSignature``), a candidate's ``finishReason``,
``usageMetadata``, ``promptFeedback``; no end marker (the body just ends).

- **whole**: the candidates with their parts joined (neighbouring text parts of one kind
  become one), the last usage and feedback; an ``error`` object becomes the HTTP error it
  names.
- **history**: a ``functionCall`` part (or ``function_call``: the JSON takes both spellings)
  of a call this upstream issued with a ``thoughtSignature`` carries that signature back,
  unchanged, or one of the values Gemini takes to skip its check
  (``providers.GEMINI_SKIP_SIGNATURES``: Gemini CLI sends one when it has none).
- **next turn** (Gemini CLI): the user's turn, then a ``model`` turn of the answer's parts as
  they came, thoughts left out (the CLI keeps them off its history), text joined, each
  ``functionCall`` part with its ``thoughtSignature``; then a user turn of a
  ``functionResponse`` per call (its ``id`` where the call had one).
- **state**: a part's ``thoughtSignature`` (on text, a thought or a function call).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

import orjson

from sseconform.providers import GEMINI_CLI_SIGNATURE, GEMINI_SKIP_SIGNATURES
from sseconform.wires.base import (
    ANY_OBJECT,
    NO_ANSWER,
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
    dumps,
    flag,
    number,
    said_number,
    said_text,
    stop_of,
    text,
)

__all__ = ["GEMINI", "GeminiWire", "finish_reason"]

#: a chat finish_reason as Gemini says it
_FINISH = {
    "stop": "STOP",
    "tool_calls": "STOP",
    "function_call": "STOP",
    "length": "MAX_TOKENS",
    "content_filter": "SAFETY",
}


def finish_reason(reason: str) -> str:
    """The ``finishReason`` a chat ``finish_reason`` is written as."""
    return _FINISH.get(reason, "STOP")


_MISSING: Any = object()


def _either(obj: Any, camel: str, default: Any = _MISSING) -> Any:
    """``obj[camel]``, or the same key in the proto's snake_case (Gemini's JSON takes both);
    without ``default``, an object (``{}`` for none)."""
    found = None
    if isinstance(obj, dict):
        found = obj.get(camel)
        if found is None:
            found = obj.get(re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), camel))
    if default is _MISSING:
        return found if isinstance(found, dict) else {}
    return default if found is None else found


#: The top-level fields of Gemini's GenerateContentRequest, in both spellings its JSON takes
#: (``labels``: Vertex AI's).
GEMINI_REQUEST_FIELDS = frozenset(
    {"model", "contents", "tools", "labels"}
    | {
        spelling
        for camel, snake in (
            ("toolConfig", "tool_config"),
            ("safetySettings", "safety_settings"),
            ("systemInstruction", "system_instruction"),
            ("generationConfig", "generation_config"),
            ("cachedContent", "cached_content"),
        )
        for spelling in (camel, snake)
    }
)


def _refuse(message: str, violations: Sequence[str] = ()) -> Refusal:
    """Gemini's 400 INVALID_ARGUMENT, with a field violation for each line given."""
    error: dict[str, Any] = {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}
    if violations:
        bad = [{"description": line} for line in violations]
        error["details"] = [
            {"@type": "type.googleapis.com/google.rpc.BadRequest", "fieldViolations": bad}
        ]
    return Refusal(400, json.dumps({"error": error}).encode(), message)


def _call_of(part: Any) -> dict[str, Any] | None:
    """A part's function call, in either spelling Gemini's JSON takes (``functionCall``, or
    the proto's ``function_call``, as LiteLLM writes it)."""
    if not isinstance(part, dict):
        return None
    call = part.get("functionCall", part.get("function_call"))
    return call if isinstance(call, dict) else None


def _first_parts(obj: dict[str, Any]) -> list[Any]:
    """The first candidate's parts."""
    candidates = obj.get("candidates")
    first = candidates[0] if isinstance(candidates, list) and candidates else None
    content = first.get("content") if isinstance(first, dict) else None
    parts = content.get("parts") if isinstance(content, dict) else None
    return parts if isinstance(parts, list) else []


def _join_part(parts: list[dict[str, Any]], part: dict[str, Any]) -> None:
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


class _PartState(StateReader):
    def feed(self, obj: dict[str, Any], frame: int, offset: int, add: Add) -> None:
        for n, part in enumerate(_first_parts(obj)):
            if not isinstance(part, dict):
                continue
            sig = part.get("thoughtSignature", part.get("thought_signature"))
            if not isinstance(sig, str) or not sig:
                continue
            call = part.get("functionCall")
            if isinstance(call, dict):
                what = f"the {call.get('name')!s} function call part"
            else:
                what = "a thought part" if part.get("thought") else "a text part"
            add("thought-signature", f"{what} (frame {frame}, part {n})", sig, frame, offset)


#: Gemini CLI's system instruction (its prompt apart) and its sampling on every request.
AGENT_SYSTEM = "You are the sseconform gate, asking as Gemini CLI asks."
AGENT_SAMPLING = {"temperature": 1, "topP": 0.95, "topK": 64}


class GeminiWire(Wire):
    endpoint, dialect, grammar = "gemini", "gemini", "gemini"
    finish_field = "finishReason"
    usage_names: ClassVar[dict[str, str | None]] = {
        "prompt_tokens": "promptTokenCount",
        "completion_tokens": "candidatesTokenCount",
        "total_tokens": "totalTokenCount",
        "cached_tokens": "cachedContentTokenCount",
    }
    #: Gemini CLI: the thoughts shown, and each call's thoughtSignature sent back with it
    agent = "Gemini CLI"
    #: Gemini CLI's on every request: the thoughts shown, within its budget
    reasoning_request: ClassVar[dict[str, Any]] = {
        "generationConfig": {"thinkingConfig": {"includeThoughts": True, "thinkingBudget": 8192}}
    }
    agent_reasons = True
    conversation = "contents"
    streams_arguments = False
    history_marks = (b'"functionCall"', b'"function_call"')
    returning_marks = (b"ignature", b"functionResponse", b"function_response")
    state_marks = ("thoughtSignature", "thought_signature")
    loose_state = False  # its carriers are parsed where they stand

    carries = frozenset(
        {"max_output_tokens", "temperature", "top_p", "top_k", "stop", "tool_choice",
         "structured_output", "reasoning", "reasoning_budget", "reasoning_effort"}
    )  # fmt: skip

    def read_request(self, obj: dict[str, Any], headers: dict[str, str]) -> Asked:
        """Gemini's words, all under ``generationConfig`` but the tool choice
        (``toolConfig.functionCallingConfig``: ``ANY`` is required, or one tool when it
        allows one name): ``maxOutputTokens``, ``stopSequences``, ``responseMimeType`` with
        ``responseSchema`` (or ``responseJsonSchema``), ``thinkingConfig`` (a
        ``thinkingBudget`` of 0 turns thinking off; a ``thinkingLevel`` asks for thinking at that
        effort, as Portkey maps ``reasoning_effort``). Each
        key in either spelling the API's JSON takes: lowerCamelCase, or the proto's
        snake_case (``max_output_tokens``, as LiteLLM writes it)."""
        out: Asked = {}
        config = _either(obj, "generationConfig")
        at = "generationConfig."
        for param, key in (("max_output_tokens", "maxOutputTokens"), ("temperature",
                           "temperature"), ("top_p", "topP"), ("top_k", "topK")):  # fmt: skip
            said_number(out, param, _either(config, key, None), at + key)
        stop_of(out, _either(config, "stopSequences", None), at + "stopSequences")
        if _either(config, "responseMimeType", None) == "application/json":
            schema = any(
                _either(config, k, None) is not None
                for k in ("responseSchema", "responseJsonSchema")
            )
            kind = "json_schema" if schema else "json_object"
            words = f"{at}responseMimeType 'application/json'"
            words += " with a schema" if schema else ""
            out["structured_output"] = Said((kind, None, None), words)
        self._thinking(out, _either(config, "thinkingConfig"), at + "thinkingConfig")
        calling = _either(_either(obj, "toolConfig"), "functionCallingConfig")
        mode = text(calling.get("mode"))
        if mode is not None:
            names = _either(calling, "allowedFunctionNames", None)
            meant = {"ANY": "required", "NONE": "none"}.get(mode, "auto")
            if mode == "ANY" and isinstance(names, list) and len(names) == 1:
                meant = f"tool:{names[0]}"
            words = f"toolConfig.functionCallingConfig {json.dumps(calling)}"
            out["tool_choice"] = Said(meant, words)
        return out

    @staticmethod
    def _thinking(out: Asked, thinking: dict[str, Any], at: str) -> None:
        budget = number(_either(thinking, "thinkingBudget", None))
        shown = flag(_either(thinking, "includeThoughts", None))
        level = _either(thinking, "thinkingLevel", None)
        if budget == 0:
            out["reasoning"] = Said(False, f"{at}.thinkingBudget 0")
        elif budget is not None or shown or level is not None:
            out["reasoning"] = Said(True, f"{at} {json.dumps(thinking, sort_keys=True)}")
        if budget is not None and budget > 0:
            out["reasoning_budget"] = Said(budget, f"{at}.thinkingBudget {budget:g}")
        said_text(out, "reasoning_effort", level, at + ".thinkingLevel")

    def request_body(
        self, model: str, prompt: str, tools: list[str] | None, about: str
    ) -> dict[str, Any]:
        """``contents`` and ``functionDeclarations``: the model and the stream are asked for
        in the URL, and usage always comes."""
        body: dict[str, Any] = {"contents": [{"role": "user", "parts": [{"text": prompt}]}]}
        body["systemInstruction"] = {"role": "user", "parts": [{"text": AGENT_SYSTEM}]}
        if tools is not None:
            declared = [{"name": n, "description": about, "parameters": ANY_OBJECT} for n in tools]
            body["tools"] = [{"functionDeclarations": declared}]
        body["generationConfig"] = dict(AGENT_SAMPLING)
        return body

    def client_headers(self, key: str | None) -> list[tuple[str, str]]:
        """As google-genai and Gemini CLI send it."""
        out = super().client_headers(key)
        return [*out, ("x-goog-api-key", key)] if key else out

    def fold(self, events: Iterable[tuple[str | None, Any]]) -> Whole:
        answer: dict[str, Any] = {}
        candidates: dict[int, dict[str, Any]] = {}
        finished = False
        for _, data in events:
            if not isinstance(data, dict):
                continue
            if "error" in data:
                return self.error_answer(data["error"])
            for key in ("usageMetadata", "promptFeedback"):
                if key in data:
                    answer[key] = data[key]
            for key in ("modelVersion", "responseId"):
                if key in data and key not in answer:
                    answer[key] = data[key]
            if as_dict(data.get("promptFeedback")).get("blockReason"):
                finished = True
            for cand in as_list(data.get("candidates")):
                if not isinstance(cand, dict):
                    continue
                index = cand.get("index", 0)
                if not isinstance(index, int) or isinstance(index, bool):
                    index = 0  # no index a client reads: the first candidate's
                merged = candidates.setdefault(
                    index, {"content": {"parts": [], "role": "model"}, "index": index}
                )
                content = as_dict(cand.get("content"))
                if "role" in content:
                    merged["content"]["role"] = content["role"]
                for part in as_list(content.get("parts")):
                    if isinstance(part, dict):
                        _join_part(merged["content"]["parts"], part)
                for key, value in cand.items():
                    if key not in ("content", "index"):
                        merged[key] = value
                finished = finished or bool(cand.get("finishReason"))
        if not finished:
            return NO_ANSWER
        answer = {"candidates": [candidates[i] for i in sorted(candidates)], **answer}
        return Whole(200, dumps(answer))

    def shows_thinking(self, obj: dict[str, Any], asked: Asked) -> bool:
        """Gemini shows thought parts only where ``includeThoughts`` is true (a budget
        alone makes it think, unseen)."""
        config = as_dict(_either(obj, "generationConfig", None))
        thinking = as_dict(_either(config, "thinkingConfig", None))
        return _either(thinking, "includeThoughts", None) is True

    def unthinking(self) -> EventFilter:
        """Without its thought parts (``thought: true``; a signature on another part
        stays, as Gemini signs calls whether it shows thoughts or not); a chunk left with
        nothing to say and no finish is left out."""

        def keep(obj: dict[str, Any]) -> dict[str, Any] | None:
            candidates = obj.get("candidates")
            if not isinstance(candidates, list):
                return obj
            out, said, changed = [], False, False
            for cand in candidates:
                content = as_dict(as_dict(cand).get("content"))
                parts = content.get("parts")
                if not isinstance(parts, list):
                    out.append(cand)
                    said = True
                    continue
                kept = [p for p in parts if as_dict(p).get("thought") is not True]
                said = said or bool(kept) or bool(as_dict(cand).get("finishReason"))
                if len(kept) == len(parts):
                    out.append(cand)
                    continue
                changed = True
                out.append({**cand, "content": {**content, "parts": kept}})
            if not changed:
                return obj
            return {**obj, "candidates": out} if said else None

        return keep

    def error_answer(self, err: Any) -> Whole:
        err = err if isinstance(err, dict) else {"message": str(err)}
        code = err.get("code")
        status = code if isinstance(code, int) and 400 <= code <= 599 else 500
        return Whole(status, dumps({"error": err}))

    request_fields = GEMINI_REQUEST_FIELDS

    def unknown_fields(self, names: list[str]) -> Refusal | None:
        """Gemini names every field it has no name for, a line and a field violation each."""
        lines = [
            f'Invalid JSON payload received. Unknown name "{k}": Cannot find field.' for k in names
        ]
        return _refuse("\n".join(lines), lines)

    def refuse(self, obj: dict[str, Any]) -> Refusal | None:
        """Any top-level field Gemini's request has no such name for, not only another
        wire's: a gateway that leaves ``stream``, ``model`` options or its own keys in the
        body is refused by Gemini, so it is here. Either spelling of a name is known (its
        JSON takes the proto's too)."""
        if self.conversation not in obj:  # no request of Gemini's: a bare test request
            return None
        unknown = [k for k in obj if k not in GEMINI_REQUEST_FIELDS]
        return self.unknown_fields(unknown) if unknown else None

    def check_history(self, obj: dict[str, Any], issued: Issued) -> Refusal | None:
        contents = obj.get("contents")
        for i, c in enumerate(contents if isinstance(contents, list) else ()):
            parts = c.get("parts") if isinstance(c, dict) and c.get("role") == "model" else None
            for j, part in enumerate(parts if isinstance(parts, list) else ()):
                call = _call_of(part)
                if call is None:
                    continue
                sig = part.get("thoughtSignature", part.get("thought_signature"))
                name = call.get("name")
                if sig is None and isinstance(name, str) and name in issued.signed_calls:
                    return _refuse(
                        "Function call is missing a thought_signature in functionCall parts. "
                        "This is required for tools to work correctly. Additional data, "
                        f"function call `default_api:{name}` , position {j + 1}."
                    )
                if sig is not None and (
                    not isinstance(sig, str)
                    or (sig not in issued.values and sig not in GEMINI_SKIP_SIGNATURES)
                ):
                    return _refuse(f"contents[{i}].parts[{j}]: Thought signature is not valid.")
        return None

    def issue(self, issued: Issued, body: bytes, data: list[str]) -> None:
        """The names of the calls whose part carried a signature (their history must carry
        one back)."""
        for d in data:
            if "thoughtSignature" not in d:
                continue
            try:
                obj = orjson.loads(d)
            except orjson.JSONDecodeError:
                continue
            for cand in as_list(obj.get("candidates")) if isinstance(obj, dict) else []:
                content = cand.get("content") if isinstance(cand, dict) else None
                for part in as_list(content.get("parts")) if isinstance(content, dict) else []:
                    call = part.get("functionCall") if isinstance(part, dict) else None
                    if isinstance(call, dict) and part.get("thoughtSignature"):
                        issued.signed_calls.add(str(call.get("name")))

    def tool_results(self, obj: dict[str, Any]) -> int:
        contents = obj.get("contents")
        n = 0
        for c in contents if isinstance(contents, list) else ():
            parts = c.get("parts") if isinstance(c, dict) else None
            for p in parts if isinstance(parts, list) else ():
                if isinstance(p, dict) and ("functionResponse" in p or "function_response" in p):
                    n += 1
        return n

    def assistant_turn(self, objs: list[dict[str, Any]]) -> Assistant:
        """The first candidate's parts, as Gemini CLI keeps them in its history: thought parts
        left out, neighbouring text parts joined (a signature stays on the part it came
        with), and the first call part that came without a signature given Gemini CLI's own
        (``GEMINI_CLI_SIGNATURE``, which Gemini takes: the turn goes on without the
        thoughts)."""
        out = Assistant()
        for obj in objs:
            for part in _first_parts(obj):
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

    def next_body(
        self, previous: dict[str, Any], answer: Assistant, text: str, history: str
    ) -> dict[str, Any]:
        body = dict(previous)
        responses = []
        for cid, name in zip(answer.calls, answer.names, strict=True):
            call: dict[str, Any] = {"name": name, "response": {"output": text}}
            if cid:
                call["id"] = cid
            responses.append({"functionResponse": call})
        body["contents"] = [
            *as_list(body.get("contents")),
            {"role": "model", "parts": answer.parts},
            {"role": "user", "parts": responses},
        ]
        return body

    def carries_token(self, obj: dict[str, Any]) -> bool:
        candidates = obj.get("candidates")
        for cand in candidates if isinstance(candidates, list) else ():
            content = cand.get("content") if isinstance(cand, dict) else None
            parts = content.get("parts") if isinstance(content, dict) else None
            for p in parts if isinstance(parts, list) else ():
                if isinstance(p, dict) and (p.get("text") or p.get("functionCall")):
                    return True
        return False

    def state_reader(self) -> StateReader:
        return _PartState()

    def label(self, obj: dict[str, Any]) -> tuple[str, bool]:
        cands = obj.get("candidates")
        if isinstance(cands, list) and cands and isinstance(cands[0], dict):
            if _first_parts(obj):
                return "candidate parts", True
            if cands[0].get("finishReason"):
                return f"finish {cands[0]['finishReason']}"[:40], False
        return "chunk", False

    def finish_word(self, reason: str) -> str:
        return finish_reason(reason)


GEMINI = GeminiWire()
