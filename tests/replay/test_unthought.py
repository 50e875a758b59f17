"""The replay upstream answers as its provider does a request that did not ask to see the
thinking: Anthropic without thinking blocks unless ``thinking`` is on, Gemini without thought
parts unless ``includeThoughts``; any wire without reasoning when the request turned it off.
What is left is still the provider's grammar (blocks and items renumbered, sequence numbers
dense), with the same text and calls, at the recorded times."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from sseconform import check_bytes
from sseconform.gate.content import content_of
from sseconform.replay.plan import load
from sseconform.replay.server import ReplayServer
from sseconform.replay.unthought import unthought
from sseconform.sse import SSEDecoder
from tests.conftest import ROOT

REC = ROOT / "recordings"
#: A recording that thinks, its grammar, the request that does not ask to see it.
CASES: list[tuple[str, str, str, dict[str, Any]]] = [
    ("anthropic/thinking-anthropic.jsonl", "anthropic", "/v1/messages",
     {"model": "m", "max_tokens": 1024, "stream": True, "messages": []}),
    ("anthropic/agent-loop-anthropic.jsonl", "anthropic", "/v1/messages",
     {"model": "m", "max_tokens": 1024, "stream": True, "messages": []}),
    ("gemini/thinking-gemini.jsonl", "gemini",
     "/v1beta/models/gemini-x:streamGenerateContent?alt=sse",
     {"contents": [], "generationConfig": {"thinkingConfig": {"thinkingBudget": 1024}}}),
    ("responses/thinking-responses.jsonl", "responses", "/v1/responses",
     {"model": "m", "stream": True, "input": "hi", "reasoning": {"effort": "none"}}),
    ("openai/openrouter-reasoning-openai.jsonl", "chat", "/v1/chat/completions",
     {"model": "m", "stream": True, "messages": [], "reasoning_effort": "none"}),
]  # fmt: skip
IDS = [c[0] for c in CASES]


def _events(body: bytes) -> list[Any]:
    dec = SSEDecoder()
    out = []
    for ev in dec.feed(body) + dec.finish():
        try:
            out.append(json.loads(ev.data))
        except ValueError:
            out.append(ev.data)
    return out


@pytest.mark.parametrize(("name", "grammar", "path", "request_body"), CASES, ids=IDS)
def test_what_is_left_is_the_same_answer_without_thinking(
    name: str, grammar: str, path: str, request_body: dict[str, Any]
) -> None:
    rec = load(str(REC / name))
    made = unthought(rec)
    assert made is not None, "the recording thinks: something is left out"
    before = content_of([rec.body], rec.dialect)
    after = content_of([made.body], rec.dialect)
    assert any(c.reasoning for c in before.model.choices.values())
    assert not any(c.reasoning for c in after.model.choices.values())
    for n, choice in before.model.choices.items():
        assert after.model.choices[n].text == choice.text
        calls = [(c.name, c.arguments) for c in choice.tool_calls.values()]
        assert [(c.name, c.arguments) for c in after.model.choices[n].tool_calls.values()] == calls

    def errors(body: bytes) -> set[str]:
        found = check_bytes(body, grammar=grammar).findings
        return {f.code for f in found if f.severity == "error"}

    assert errors(made.body) <= errors(rec.body)  # OpenRouter's own F004 stays
    assert made.reads[-1][0] == rec.reads[-1][0], "the answer ends when it ended"
    assert unthought(made) is None, "nothing left to leave out"


def test_renumbered_as_the_provider_numbers() -> None:
    made = unthought(load(str(REC / "responses" / "thinking-responses.jsonl")))
    assert made is not None
    objs = [e for e in _events(made.body) if isinstance(e, dict)]
    seqs = [e["sequence_number"] for e in objs]
    assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
    added = [e["output_index"] for e in objs if e["type"] == "response.output_item.added"]
    assert added == list(range(len(added)))
    anthropic = unthought(load(str(REC / "anthropic" / "thinking-anthropic.jsonl")))
    assert anthropic is not None
    starts = [e["index"] for e in _events(anthropic.body)
              if isinstance(e, dict) and e.get("type") == "content_block_start"]  # fmt: skip
    assert starts == list(range(len(starts)))


def test_a_recording_without_thinking_is_served_as_it_is() -> None:
    assert unthought(load(str(REC / "anthropic" / "text-anthropic.jsonl"))) is None
    assert unthought(load(str(REC / "gemini" / "text-gemini.jsonl"))) is None


@pytest.mark.parametrize(("name", "grammar", "path", "request_body"), CASES, ids=IDS)
def test_served_without_thinking_unless_asked(
    name: str, grammar: str, path: str, request_body: dict[str, Any], tmp_path: Path
) -> None:
    """Through a real server on 127.0.0.1: the request that does not ask gets no thinking;
    the same request asking for it gets the recording byte for byte."""
    rec = load(str(REC / name))
    asking: dict[str, dict[str, Any]] = {
        "anthropic": {"thinking": {"type": "enabled", "budget_tokens": 1024}, "max_tokens": 2048},
        "gemini": {"generationConfig": {"thinkingConfig": {"includeThoughts": True}}},
        "responses": {"reasoning": {"effort": "medium"}},
        "chat": {"reasoning_effort": "medium"},
    }
    asks = asking[grammar]
    server = ReplayServer([rec], host="127.0.0.1", port=0, speed=0)
    with server.running(), httpx.Client(trust_env=False, timeout=10) as http:
        plain = http.post(server.url + path, json=request_body)
        asked = http.post(server.url + path, json={**request_body, **asks})
    assert plain.status_code == asked.status_code == 200
    assert asked.content == rec.body
    made = unthought(rec)
    assert made is not None and plain.content == made.body
