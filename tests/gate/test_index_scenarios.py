"""The call-index bugs gateways ship, each failing a built-in scenario that names it: a
gateway that numbers each upstream chunk's calls from 0 merges parallel calls sent apart
(``parallel-calls`` on Anthropic, Responses and chat; ``calls-one-per-chunk`` on Gemini,
whose ``parallel-calls`` holds both calls in one chunk and cannot show it); a gateway that
takes the upstream's own position (Anthropic's block index, Responses' ``output_index``)
for a call's index skips the indexes the text, thinking or reasoning before it took
(``I003``). A faithful gateway passes them all on every endpoint."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sseconform.demo.gateway import Gateway
from sseconform.gate.aimed import for_endpoint
from sseconform.gate.runner import run_suite
from sseconform.gate.suite import builtin_suite
from tests.gate.test_gate import free_port

CALLS = ("tool-call", "parallel-calls", "calls-one-per-chunk", "text-then-call", "agent-loop")

#: Per bug: the scenarios it fails through the chat endpoint, each with a code it must show.
FAILS: dict[str, dict[str, str]] = {
    "index-per-chunk": {
        "anthropic/parallel-calls": "T004",
        "gemini/calls-one-per-chunk": "T004",
        "responses/parallel-calls": "T004",
        "openai/parallel-calls": "T004",
    },
    "index-from-output": {
        "anthropic/text-then-call": "I003",
        "anthropic/agent-loop": "I003",
        "gemini/calls-one-per-chunk": "T004",
        "responses/tool-call": "I003",
        "responses/parallel-calls": "I003",
        "responses/text-then-call": "I003",
        "responses/agent-loop": "I003",
    },
}


def _run(tmp_path: Path, endpoint: str, bugs: set[str]) -> dict[str, Any]:
    suite = for_endpoint(builtin_suite("all"), endpoint)
    suite.scenarios = [sc for sc in suite.scenarios if sc.name.rsplit("/", 1)[-1] in CALLS]
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", bugs).running() as gw:
        result = run_suite(suite, gw.url, str(tmp_path), upstream_port=port, concurrency=4)
    got = {s.name.removeprefix(f"{endpoint}/"): s for s in result.scenarios}
    assert len(got) == 4 * 4 + 1, sorted(got)  # four dialects' four, and Gemini's own
    return got


#: On the endpoints that translate into Anthropic's and Responses' grammars, the calls
#: misnumbered in the gateway's own chat-shaped model: merged calls break the grammar (a block
#: or item started twice); the upstream of the endpoint's own grammar passes through untouched.
MERGED = {"messages": "A013", "responses": "S032"}
PER_CHUNK = {
    endpoint: {
        f"{dialect}/{name}": code
        for dialect, name in (("anthropic", "parallel-calls"), ("gemini", "calls-one-per-chunk"),
                              ("responses", "parallel-calls"), ("openai", "parallel-calls"))
        if dialect != {"messages": "anthropic", "responses": "responses"}[endpoint]
    }
    for endpoint, code in MERGED.items()
}  # fmt: skip


@pytest.mark.parametrize("bug", sorted(FAILS))
def test_each_index_bug_fails_the_scenarios_that_show_it(tmp_path: Path, bug: str) -> None:
    _fails(_run(tmp_path, "chat", {bug}), FAILS[bug])


@pytest.mark.parametrize("endpoint", sorted(MERGED))
def test_calls_numbered_per_chunk_fail_on_the_other_grammars(tmp_path: Path, endpoint: str) -> None:
    _fails(_run(tmp_path, endpoint, {"index-per-chunk"}), PER_CHUNK[endpoint])


def _fails(got: dict[str, Any], want: dict[str, str]) -> None:
    failed = {name for name, s in got.items() if s.verdict == "fail"}
    assert failed == set(want), sorted(failed)
    for name, code in want.items():
        keys = {f.key for f in got[name].findings if f.severity == "error"}
        assert code in keys, (name, sorted(keys))


@pytest.mark.parametrize("endpoint", ["chat", "messages", "responses", "gemini"])
def test_a_faithful_gateway_passes_every_call_scenario(tmp_path: Path, endpoint: str) -> None:
    for name, s in _run(tmp_path, endpoint, set()).items():
        assert s.verdict == "pass", (name, [(f.key, f.message) for f in s.findings])
