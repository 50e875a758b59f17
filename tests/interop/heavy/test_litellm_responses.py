"""Codex CLI, openai-python and the AI SDK on the streams LiteLLM's ``/v1/responses`` sent where
``gate`` found a deviation (the known entries of tests/gate/litellm-responses-known.json): what
each client does with them, so the gate's verdicts rest on the clients, not on the grammar alone.

The streams under ``litellm-responses/fail/`` are LiteLLM 1.106.2's own answers to the built-in
scenarios, recorded by ``sseconform gate --endpoint responses`` (tests/gate/test_litellm.py).
Every client runs offline on 127.0.0.1 as in the matrix; a call Codex answers goes back as a
second request, which gets a plain answer.

What was measured: the numbering gap (S010) breaks no client (the gate's diff finds the calls
intact); the reasoning items without ``summary`` / ``summary_index`` (J003) make the AI SDK
raise; the 429 turned into a lone ``response.failed`` (S001) makes openai-python's
``responses.stream()`` raise on the missing ``response.created`` instead of a rate-limit error,
while Codex and the AI SDK report the upstream's message.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from sseconform.api import check_bytes
from tests.interop.matrix.clients import clients
from tests.interop.matrix.outcome import ERROR, OK
from tests.interop.matrix.run import measure

REQUIRE = os.environ.get("SSECONFORM_REQUIRE_HEAVY") == "1"
ROOT = Path(__file__).parent / "litellm-responses"

#: case -> the gate's error codes on LiteLLM's stream
CODES = {
    "anthropic-parallel-calls": {"S010"},
    "anthropic-reasoning": {"J003", "S024", "S043"},
    "gemini-parallel-calls": {"S010"},
    "gemini-rate-limited": {"J003", "S001"},
    "gemini-reasoning": {"J003", "S024", "S043"},
}
#: (client, case) -> (outcome, what its detail shows); every other pair reads the stream right
SEEN = {
    ("ai-sdk-openai-responses", "anthropic-reasoning"): (ERROR, "AI_TypeValidationError"),
    ("ai-sdk-openai-responses", "gemini-reasoning"): (ERROR, "AI_TypeValidationError"),
    ("ai-sdk-openai-responses", "gemini-rate-limited"): (OK, "Rate limit reached"),
    ("openai-python", "gemini-rate-limited"): (ERROR, "Expected to have received"),
    ("codex", "gemini-rate-limited"): (OK, "rate limit exceeded"),
}


def test_clients_on_litellm_s_responses_deviations() -> None:
    chosen = [c for c in clients("responses", heavy=True) if c.name != "opencode"]
    assert {c.name for c in chosen} == {"openai-python", "ai-sdk-openai-responses", "codex"}
    for name, codes in CODES.items():
        body = (ROOT / "fail" / name / "stream.sse").read_bytes()
        res = check_bytes(body, grammar="responses")
        errors = {d.code for d in res.findings if d.severity.value == "error"}
        assert errors == codes, (name, errors)
    entries, missing = measure(
        "responses", [dataclasses.replace(c, followup=True) for c in chosen], ROOT
    )
    if missing:
        if REQUIRE:
            pytest.fail("; ".join(missing))
        pytest.skip("; ".join(missing))
    for client, entry in entries.items():
        got = {
            c.removeprefix("fail/"): (r["outcome"], r["detail"]) for c, r in entry["cases"].items()
        }
        assert set(got) == set(CODES), client
        for case, (outcome, detail) in got.items():
            want, shows = SEEN.get((client, case), (OK, ""))
            assert outcome == want and shows in detail, (client, case, outcome, detail)
