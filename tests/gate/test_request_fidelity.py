"""Request fidelity: what reached the upstream of the client's request, parameter by parameter.

A pass-through that forwards every stream untouched but changes the request as real gateways
do (max tokens replaced by a default; sampling, stop sequences, cache markers, ``tool_choice``,
structured output and the reasoning request removed; ``anthropic-beta`` not forwarded) fails
exactly the scenarios whose request carried what it changed, each with a finding naming the
parameter; the same pass-through unchanged passes everything.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sseconform.gate.runner import run_suite
from sseconform.gate.suite import load_suite
from sseconform.wires import by_endpoint
from sseconform.wires.base import PARAMS
from tests.gate.gateway import Gateway
from tests.gate.test_gate import free_port

#: Per endpoint (served by an upstream of its own dialect, a pass-through): each scenario's
#: recording, its request settings and headers, and the parameters it carries that the
#: ``request-strip`` bug removes.
SCENARIOS: dict[str, list[tuple[str, str, str, set[str]]]] = {
    "messages": [
        ("plain", "anthropic/text-anthropic.jsonl", "", set()),
        ("max-tokens", "anthropic/text-anthropic.jsonl", "request = { max_tokens = 777 }", set()),
        ("sampling", "anthropic/text-anthropic.jsonl",
         "request = { temperature = 0.3, top_p = 0.9, top_k = 40 }",
         {"temperature", "top_p", "top_k"}),
        ("stop", "anthropic/text-anthropic.jsonl",
         'request = { stop_sequences = ["END"] }', {"stop"}),
        ("cache", "anthropic/text-anthropic.jsonl",
         'request = { system = [{ type = "text", text = "Be terse.", '
         'cache_control = { type = "ephemeral", ttl = "1h" } }] }', {"cache_markers"}),
        ("tool-choice", "anthropic/tool-call-anthropic.jsonl",
         'request = { tool_choice = { type = "any" } }', {"tool_choice"}),
        ("structured", "anthropic/text-anthropic.jsonl",
         'request = { output_format = { type = "json_schema", schema = { type = "object" } } }',
         {"structured_output"}),
        ("thinking", "anthropic/thinking-anthropic.jsonl", "reasoning = true",
         {"reasoning", "reasoning_budget"}),
        ("beta", "anthropic/text-anthropic.jsonl",
         'headers = { "anthropic-beta" = "interleaved-thinking-2025-05-14" }', set()),
    ],
    "chat": [
        ("plain", "openai/azure-tool-call-openai.jsonl", "", set()),
        ("max-tokens", "chat/text-usage.jsonl",
         "request = { max_completion_tokens = 777 }", set()),
        ("sampling", "chat/text-usage.jsonl",
         "request = { temperature = 0.3, top_p = 0.9 }", {"temperature", "top_p"}),
        ("stop", "chat/text-usage.jsonl", 'request = { stop = ["END"] }', {"stop"}),
        ("cache", "chat/text-usage.jsonl",
         'request = { messages = [{ role = "system", content = [{ type = "text", text = '
         '"Be terse.", cache_control = { type = "ephemeral" } }] }, { role = "user", '
         'content = "hi" }] }', {"cache_markers"}),
        ("tool-choice", "openai/azure-tool-call-openai.jsonl",
         'request = { tool_choice = "required" }', {"tool_choice"}),
        ("structured", "chat/text-usage.jsonl",
         'request = { response_format = { type = "json_schema", json_schema = { name = '
         '"answer", strict = true, schema = { type = "object" } } } }',
         {"structured_output"}),
        ("thinking", "openai/openrouter-reasoning-openai.jsonl", "reasoning = true",
         {"reasoning", "reasoning_effort"}),
    ],
    "responses": [
        ("plain", "responses/text-responses.jsonl", "", set()),
        ("max-tokens", "responses/text-responses.jsonl",
         "request = { max_output_tokens = 777 }", set()),
        ("sampling", "responses/text-responses.jsonl",
         "request = { temperature = 0.3, top_p = 0.9 }", {"temperature", "top_p"}),
        ("tool-choice", "responses/tool-call-responses.jsonl",
         'request = { tool_choice = "required" }', {"tool_choice"}),
        ("structured", "responses/text-responses.jsonl",
         'request = { text = { format = { type = "json_schema", name = "answer", strict = '
         'true, schema = { type = "object" } } } }', {"structured_output"}),
        ("thinking", "responses/thinking-responses.jsonl", "reasoning = true",
         {"reasoning", "reasoning_effort", "reasoning_summary"}),
    ],
}  # fmt: skip
DIALECT = {"messages": "anthropic", "chat": "openai", "responses": "responses"}


def _suite(tmp_path: Path, endpoint: str) -> Path:
    lines = ["speed = 0", f'endpoint = "{endpoint}"']
    for name, recording, settings, _ in SCENARIOS[endpoint]:
        lines += ["[[scenario]]", f'name = "{name}"', f'recording = "builtin:{recording}"']
        lines += [settings] if settings else []
    path = tmp_path / f"{endpoint}.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _run(tmp_path: Path, endpoint: str, bugs: set[str]) -> dict[str, Any]:
    suite = load_suite(str(_suite(tmp_path, endpoint)))
    port = free_port()
    gw = Gateway(f"http://127.0.0.1:{port}", bugs)
    with gw.running():
        out = tmp_path / ("-".join(sorted(bugs)) or "faithful")
        result = run_suite(suite, gw.url, str(out), upstream_port=port)
    return {s.name.rsplit("/", 1)[-1]: s for s in result.scenarios}


def _request_errors(s: Any) -> set[str]:
    return {f.field for f in s.findings if f.source == "request" and f.severity == "error"}


@pytest.mark.parametrize("endpoint", list(SCENARIOS))
def test_an_unchanged_pass_through_passes_everything(tmp_path: Path, endpoint: str) -> None:
    got = _run(tmp_path, endpoint, set())
    assert set(got) == {name for name, *_ in SCENARIOS[endpoint]}
    for name, s in got.items():
        assert s.verdict == "pass", (name, [(f.key, f.message) for f in s.findings])
        assert not [f for f in s.findings if f.source == "request"], name


@pytest.mark.parametrize("endpoint", list(SCENARIOS))
def test_stripped_parameters_fail_the_scenarios_that_carried_them(
    tmp_path: Path, endpoint: str
) -> None:
    got = _run(tmp_path, endpoint, {"request-strip"})
    checked = 0
    for name, _, _, carried in SCENARIOS[endpoint]:
        s = got[name]
        lost = {f.field for f in s.findings if f.key.startswith("request:lost:")}
        assert lost == carried, (name, [(f.key, f.message) for f in s.findings])
        errors = {p for p in carried if p not in ("temperature", "top_p", "top_k")}
        errors -= {"reasoning_effort", "reasoning_budget", "reasoning_summary"}
        assert _request_errors(s) == errors, (name, [f.key for f in s.findings])
        assert (s.verdict == "fail") == bool(errors), (name, s.verdict)
        checked += 1
    assert checked == len(SCENARIOS[endpoint])


@pytest.mark.parametrize("endpoint", list(SCENARIOS))
def test_a_default_max_tokens_fails_where_the_client_asked_for_one(
    tmp_path: Path, endpoint: str
) -> None:
    got = _run(tmp_path, endpoint, {"request-max-tokens"})
    asked = by_endpoint(endpoint)
    for name, s in got.items():
        keys = {f.key for f in s.findings if f.source == "request"}
        said = name == "max-tokens" or "max_output_tokens" in asked.requires
        if endpoint == "messages" and name == "thinking":  # Claude Code's 4096: unchanged
            assert not keys and s.verdict == "pass", (name, keys)
        elif said:  # Messages always says one: 1024 unless the scenario says 777
            assert keys == {"request:changed:max_output_tokens"}, (name, keys)
            assert s.verdict == "fail"
            message = next(f.message for f in s.findings if f.source == "request")
            assert "4096" in message
        else:
            assert keys == {"request:added:max_output_tokens"}, (name, keys)
            assert s.verdict == "pass", (name, [f.key for f in s.findings])


def test_a_lost_beta_header_fails_the_scenario_that_sent_it(tmp_path: Path) -> None:
    got = _run(tmp_path, "messages", {"drop-beta"})
    for name, s in got.items():
        if name == "beta":
            assert _request_errors(s) == {"features"}
            f = next(f for f in s.findings if f.source == "request")
            assert "interleaved-thinking-2025-05-14" in f.message
            assert f.key == "request:lost:features"
        else:
            assert s.verdict == "pass", (name, [f.key for f in s.findings])


def test_the_message_names_both_wires_words(tmp_path: Path) -> None:
    got = _run(tmp_path, "chat", {"request-max-tokens"})
    [f] = [f for f in got["max-tokens"].findings if f.source == "request"]
    assert f.message == (
        "request.max_output_tokens: the client asked for max_completion_tokens 777; "
        "the upstream got max_completion_tokens 4096"
    )


def test_every_parameter_has_a_policy_and_every_wire_says_only_known_ones() -> None:
    from sseconform.gate.rules.request import POLICY

    assert set(POLICY) == set(PARAMS)
    for endpoint in ("chat", "messages", "responses", "gemini"):
        assert by_endpoint(endpoint).carries <= set(PARAMS), endpoint
