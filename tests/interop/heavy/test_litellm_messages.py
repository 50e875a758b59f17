"""Claude Code on the streams LiteLLM's ``/v1/messages`` sent where ``gate`` found a deviation
(the known entries of tests/gate/litellm-messages-known.json): what the agent itself does with
each, so the gate's verdicts rest on the client, not on the grammar alone.

The streams under ``litellm-messages/fail/`` are LiteLLM 1.106.2's own answers to the built-in
scenarios, recorded by ``sseconform gate --endpoint messages`` (tests/gate/test_litellm.py).
Claude Code runs offline on 127.0.0.1 as in the matrix; later streaming requests (the agent's
own retries or continuations) get a plain answer, so the first stream's effect is what shows.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from sseconform.api import check_bytes
from tests.interop.heavy.clients import heavy_clients
from tests.interop.matrix.outcome import ERROR, WRONG
from tests.interop.matrix.run import measure

REQUIRE = os.environ.get("SSECONFORM_REQUIRE_HEAVY") == "1"
ROOT = Path(__file__).parent / "litellm-messages"

#: case -> (the gate's error keys on LiteLLM's stream, Claude Code's outcome, what it shows)
SEEN = {
    # Gemini's two parallel calls land in one tool_use block, their JSON concatenated
    "gemini-parallel-calls": ({"A013"}, WRONG, "__unparsedToolInput"),
    # the upstream's 429 arrives as a 200 stream with an error event: Claude Code falls back
    # to non-streaming requests (three), instead of the retry a 429 status would get
    "gemini-rate-limited": (set(), ERROR, "fell back to non-streaming"),
    # incomplete (content_filter) becomes stop_reason max_tokens: Claude Code asks again
    "responses-content-filter": (set(), WRONG, "sent 1 more streaming requests"),
}


def test_claude_code_on_litellm_s_messages_deviations() -> None:
    [client] = [c for c in heavy_clients() if c.name == "claude-code"]
    if client.version() is None:
        if REQUIRE:
            pytest.fail(f"{client.name} is not installed: {client.missing}")
        pytest.skip(f"{client.name} is not installed: {client.missing}")
    for name, (codes, _, _) in SEEN.items():
        body = (ROOT / "fail" / name / "stream.sse").read_bytes()
        res = check_bytes(body, grammar="anthropic")
        errors = {d.code for d in res.findings if d.severity.value == "error"}
        assert errors == codes, (name, errors)
    entries, missing = measure("anthropic", [dataclasses.replace(client, followup=True)], ROOT)
    assert not missing, missing
    cases = entries[client.name]["cases"]
    got = {case.removeprefix("fail/"): (r["outcome"], r["detail"]) for case, r in cases.items()}
    assert set(got) == set(SEEN)
    for name, (_, outcome, shows) in SEEN.items():
        assert got[name][0] == outcome and shows in got[name][1], (name, got[name])
