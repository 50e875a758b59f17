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
from sseconform.replay.answered import uncached, unthought
from sseconform.replay.plan import load
from sseconform.replay.server import ReplayServer
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


# -- the prompt cache ------------------------------------------------------------------------

CACHED = "anthropic/usage-anthropic.jsonl"  # 14 input tokens, 2048 read from the cache
MARKED: dict[str, Any] = {
    "model": "m",
    "max_tokens": 1024,
    "stream": True,
    "messages": [
        {
            "role": "user",
            "content": [{"type": "text", "text": "hi", "cache_control": {"type": "ephemeral"}}],
        }
    ],
}
UNMARKED: dict[str, Any] = {**MARKED, "messages": [{"role": "user", "content": "hi"}]}


def _usages(body: bytes) -> list[dict[str, Any]]:
    out = []
    for obj in _events(body):
        if isinstance(obj, dict) and obj.get("type") == "message_start":
            out.append(obj["message"]["usage"])
        elif isinstance(obj, dict) and obj.get("type") == "message_delta":
            out.append(obj["usage"])
    return out


def test_uncached_counts_the_cache_reads_as_input() -> None:
    """What Anthropic counts for a prompt it did not read from the cache: the same prompt
    tokens, all of them input; nothing else of the stream changes."""
    rec = load(str(REC / CACHED))
    made = uncached(rec)
    assert made is not None
    before, after = _usages(rec.body), _usages(made.body)
    assert [u["cache_read_input_tokens"] for u in before] == [2048, 2048]
    assert [u["cache_read_input_tokens"] for u in after] == [0, 0]
    assert [u["input_tokens"] for u in after] == [2062, 2062]
    assert set(after[0]["cache_creation"].values()) == {0}
    assert [u.get("output_tokens") for u in after] == [u.get("output_tokens") for u in before]
    was, now = content_of([rec.body], rec.dialect), content_of([made.body], made.dialect)
    assert was.model.choices[0].text == now.model.choices[0].text
    assert check_bytes(made.body, grammar="anthropic").findings == []
    times = [t for t, _ in rec.reads]  # each event at the time its last byte was recorded
    assert {t for t, _ in made.reads} <= set(times) and made.reads[-1][0] == times[-1]
    assert uncached(made) is None, "nothing left to count again"


def test_uncached_leaves_what_caches_anyway() -> None:
    """No cache count, or a wire whose caching is automatic (OpenAI's, Gemini's): as it is."""
    assert uncached(load(str(REC / "anthropic" / "text-anthropic.jsonl"))) is None
    assert uncached(load(str(REC / "openai" / "openrouter-reasoning-openai.jsonl"))) is None
    assert uncached(load(str(REC / "gemini" / "usage-gemini.jsonl"))) is None


def test_served_from_the_cache_only_past_a_breakpoint() -> None:
    """Through a real server on 127.0.0.1, read by anthropic-python: a request with a
    ``cache_control`` breakpoint gets the recorded cache read, byte for byte; the same
    request without one gets none, its prompt counted as input."""
    import anthropic

    rec = load(str(REC / CACHED))
    server = ReplayServer([rec], host="127.0.0.1", port=0, speed=0)
    with server.running():
        client = anthropic.Anthropic(base_url=server.url, api_key="k", max_retries=0)
        read = {}
        for name, body in (("marked", MARKED), ("unmarked", UNMARKED)):
            with client.messages.stream(
                model="m", max_tokens=1024, messages=body["messages"]
            ) as stream:
                read[name] = stream.get_final_message().usage
        with httpx.Client(trust_env=False, timeout=10) as http:
            raw = http.post(server.url + "/v1/messages", json=MARKED).content
    assert raw == rec.body
    assert (read["marked"].cache_read_input_tokens, read["marked"].input_tokens) == (2048, 14)
    assert (read["unmarked"].cache_read_input_tokens, read["unmarked"].input_tokens) == (0, 2062)
