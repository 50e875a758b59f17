"""The real openai SDK against sseconform's own model, over real HTTP, on every passing case.

Each ``tests/cases/pass`` body is served byte for byte from loopback; openai-python consumes it
the way a careful user would (``create(stream=True)``, accumulating by tool-call index) and
through its own ``.stream()`` accumulator. What the SDK ends up with must equal what
:class:`~sseconform.model.Reassembler` makes of the same bytes: if they differ, either the
model or the stream shape is wrong.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import openai
import pytest

from sseconform.rules.catalog import RULES, Severity
from sseconform.wires.reassemble import Reassembler, reassemble
from tests.conftest import CASES
from tests.interop.conftest import SSEServer

MESSAGES: list[Any] = [{"role": "user", "content": "Hi"}]


def _codes(case: Path) -> set[str]:
    return {ln.strip() for ln in (case / "expected.txt").read_text().splitlines() if ln.strip()}


PASS_CASES = sorted(
    p
    for p in (CASES / "pass").iterdir()
    if (p / "stream.sse").is_file()
    and all(RULES[c].severity is not Severity.ERROR for c in _codes(p))
)


def _frames(body: bytes) -> list[dict[str, Any]]:
    """The JSON objects of a case body, read with the stdlib, not with the model under test."""
    out = []
    for line in body.splitlines():
        if line.startswith(b"data:"):
            try:
                obj = json.loads(line[5:])
            except ValueError:
                continue
            if isinstance(obj, dict):
                out.append(obj)
    return out


def _has_error_frame(body: bytes) -> bool:
    return any(obj.get("error") for obj in _frames(body))


def _finish_reasons(body: bytes) -> set[str]:
    return {
        ch["finish_reason"]
        for obj in _frames(body)
        for ch in obj.get("choices") or []
        if isinstance(ch, dict) and ch.get("finish_reason")
    }


# `get_final_completion()` runs the structured-output parser, which refuses these two finish
# reasons even when no response_format or tools were given; the snapshot rides on the error.
HELPER_RAISES: dict[str, type[openai.OpenAIError]] = {
    "length": openai.LengthFinishReasonError,
    "content_filter": openai.ContentFilterFinishReasonError,
}


@dataclass
class Seen:
    """One choice as a careful openai-python user accumulates it."""

    text: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    refusal: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    finish_reason: str | None = None

    def summary(self) -> dict[str, Any]:
        return {
            "text": "".join(self.text),
            "reasoning": "".join(self.reasoning),
            "refusal": "".join(self.refusal),
            "finish_reason": self.finish_reason,
            "tool_calls": {
                i: (c["id"], c["name"], "".join(c["arguments"])) for i, c in self.calls.items()
            },
        }


def _reasoning(delta: Any) -> str | None:
    """``reasoning_content`` is not in the SDK's types: it arrives as a pydantic extra."""
    extra = delta.model_extra or {}
    value = getattr(delta, "reasoning_content", None) or extra.get("reasoning_content")
    if not value:
        value = getattr(delta, "reasoning", None) or extra.get("reasoning")
    return value if isinstance(value, str) and value else None


@dataclass
class Accumulated:
    choices: dict[int, Seen] = field(default_factory=dict)
    ids: list[str] = field(default_factory=list)
    models: list[str] = field(default_factory=list)
    usage: dict[str, Any] | None = None

    def add(self, chunk: Any) -> None:
        if chunk.id or chunk.choices:  # Azure's prompt-filter chunk: blank id, no choices
            self.ids.append(chunk.id)
        if chunk.model or chunk.choices:
            self.models.append(chunk.model)
        if chunk.usage is not None:
            self.usage = chunk.usage.to_dict()
        for ch in chunk.choices:
            seen = self.choices.setdefault(ch.index, Seen())
            d = ch.delta
            if d.content:
                seen.text.append(d.content)
            if r := _reasoning(d):
                seen.reasoning.append(r)
            if d.refusal:
                seen.refusal.append(d.refusal)
            for tc in d.tool_calls or []:
                call = seen.calls.setdefault(tc.index, {"id": None, "name": None, "arguments": []})
                if tc.id and call["id"] is None:
                    call["id"] = tc.id
                if tc.function is not None:
                    if tc.function.name and call["name"] is None:
                        call["name"] = tc.function.name
                    if tc.function.arguments:
                        call["arguments"].append(tc.function.arguments)
            if ch.finish_reason:
                seen.finish_reason = ch.finish_reason


def _model_summary(r: Reassembler) -> dict[int, dict[str, Any]]:
    return {
        i: {
            "text": c.text,
            "reasoning": c.reasoning,
            "refusal": c.refusal,
            "finish_reason": c.finish_reason,
            "tool_calls": {j: (t.id, t.name, t.arguments) for j, t in c.tool_calls.items()},
        }
        for i, c in r.choices.items()
    }


def _client(server: SSEServer) -> openai.OpenAI:
    return openai.OpenAI(
        base_url=f"http://127.0.0.1:{server.port}/v1", api_key="test", max_retries=0
    )


def test_cases_found() -> None:
    assert len(PASS_CASES) >= 20
    assert any(_has_error_frame((p / "stream.sse").read_bytes()) for p in PASS_CASES)


@pytest.mark.parametrize("case", PASS_CASES, ids=lambda p: p.name)
def test_create_stream_matches_model(case: Path, sse_server: SSEServer) -> None:
    body = (case / "stream.sse").read_bytes()
    sse_server.serve(body)
    model = reassemble(body)
    acc = Accumulated()
    with _client(sse_server) as client:
        stream = client.chat.completions.create(model="gpt-test", messages=MESSAGES, stream=True)
        if _has_error_frame(body):
            with pytest.raises(openai.APIError) as info:
                for chunk in stream:
                    acc.add(chunk)
            assert model.error is not None
            assert info.value.message == model.error["message"]
            assert info.value.body == model.error
        else:
            for chunk in stream:
                acc.add(chunk)
            assert model.error is None
            assert model.done
    assert json.loads(sse_server.requests[-1])["stream"] is True
    got = {i: s.summary() for i, s in acc.choices.items()}
    assert got == _model_summary(model)
    assert acc.ids[:1] == ([model.id] if model.id else [])
    assert acc.models[:1] == ([model.model] if model.model else [])
    assert acc.usage == model.usage


@pytest.mark.parametrize(
    "case",
    [p for p in PASS_CASES if not _has_error_frame((p / "stream.sse").read_bytes())],
    ids=lambda p: p.name,
)
def test_stream_helper_matches_model(case: Path, sse_server: SSEServer) -> None:
    body = (case / "stream.sse").read_bytes()
    sse_server.serve(body)
    model = reassemble(body)
    raises = [HELPER_RAISES[f] for f in _finish_reasons(body) if f in HELPER_RAISES]
    with (
        _client(sse_server) as client,
        client.chat.completions.stream(model="gpt-test", messages=MESSAGES) as stream,
    ):
        if raises:
            with pytest.raises(raises[0]) as info:
                stream.get_final_completion()
            final: Any = info.value.completion  # type: ignore[attr-defined]
        else:
            final = stream.get_final_completion()
    got = {}
    for choice in final.choices:
        msg = choice.message
        got[choice.index] = {
            "text": msg.content or "",
            "reasoning": getattr(msg, "reasoning_content", None) or "",
            "refusal": msg.refusal or "",
            "finish_reason": choice.finish_reason,
            "tool_calls": {
                j: (tc.id, tc.function.name, tc.function.arguments)
                for j, tc in enumerate(msg.tool_calls or [])
            },
        }
    assert got == _model_summary(model)
    assert final.id == model.id
    assert (final.usage.to_dict() if final.usage else None) == model.usage
