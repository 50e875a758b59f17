"""Translations into the agents' grammars, through the agents themselves: a sample of bundled
recordings of every dialect, translated ``--to anthropic`` and run through Claude Code, and
``--to responses`` through Codex CLI (offline, on 127.0.0.1, as the matrix runs them). Each
agent must end with the text and tool calls the source means.

Needs ``bash tests/interop/heavy/install.sh``; skipped without it unless
``SSECONFORM_REQUIRE_HEAVY=1``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from sseconform.gate.content import content_of
from sseconform.replay.plan import load
from sseconform.translate import translate_body
from tests.conftest import ROOT
from tests.interop.heavy.clients import heavy_clients
from tests.interop.matrix.outcome import OK
from tests.interop.matrix.reading import read
from tests.interop.matrix.run import measure

REQUIRE = os.environ.get("SSECONFORM_REQUIRE_HEAVY") == "1"
#: One answer per shape: text, a call, parallel calls, text then a call, from each dialect.
SAMPLE = [
    "anthropic/text-then-call-anthropic.jsonl",
    "gemini/parallel-calls-gemini.jsonl",
    "gemini/text-gemini.jsonl",
    "responses/tool-call-responses.jsonl",
    "openai/mistral-parallel-calls-openai.jsonl",
    "chat/text-usage.jsonl",
]


@pytest.mark.parametrize("grammar", ["anthropic", "responses"])
def test_the_agent_reads_the_translation(grammar: str, tmp_path: Path) -> None:
    agent = {"anthropic": "claude-code", "responses": "codex"}[grammar]
    [client] = [c for c in heavy_clients() if c.grammar == grammar and c.name == agent]
    if client.version() is None:
        if REQUIRE:
            pytest.fail(f"{client.name} is not installed: {client.missing}")
        pytest.skip(f"{client.name} is not installed: {client.missing}")
    for name in SAMPLE:
        rec = load(str(ROOT / "recordings" / name))
        folder = tmp_path / "pass" / Path(name).stem
        folder.mkdir(parents=True)
        out = b"".join(translate_body([rec.body], rec.dialect, to=grammar))
        (folder / "stream.sse").write_bytes(out)
        # what the agent is held to (the matrix's reading of the translation) is the source's
        # text and calls, so an agent that reads the translation right reads the source's
        meant = read(grammar, out)[0]
        source = content_of([rec.body], rec.dialect).model.choices[0]
        assert meant.text == source.text, name
        calls = [(c.name, json.loads(c.arguments)) for c in source.tool_calls.values()]
        assert [(c.name, c.arguments) for c in meant.calls] == calls, name
    entries, missing = measure(grammar, [client], root=tmp_path)
    assert not missing, missing
    cases = entries[client.name]["cases"]
    assert len(cases) == len(SAMPLE)
    wrong = {case: r for case, r in cases.items() if r["outcome"] != OK}
    assert not wrong, wrong
