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

from sseconform.demo.gateway import Gateway
from sseconform.gate.runner import run_suite
from sseconform.gate.suite import load_suite
from sseconform.wires import by_endpoint
from sseconform.wires.base import PARAMS
from tests.gate.test_gate import free_port

#: What the built-in request carries on its own (the endpoint's agent: Claude Code's thinking
#: and cache breakpoints, Codex's reasoning) that ``request-strip`` removes.
THINKING = {"reasoning", "reasoning_budget"}
CLAUDE = THINKING | {"cache_markers"}
CODEX = {"reasoning", "reasoning_effort"}

#: Per endpoint (served by an upstream of its own dialect, a pass-through): each scenario's
#: recording, its request settings and headers, and the parameters it carries that the
#: ``request-strip`` bug removes. On messages a scenario's own ``max_tokens`` 777, its
#: ``temperature`` or a forced tool leave Claude Code's thinking out (as Claude Code does:
#: Anthropic refuses them with thinking on).
SCENARIOS: dict[str, list[tuple[str, str, str, set[str]]]] = {
    "messages": [
        ("plain", "anthropic/text-anthropic.jsonl", "", CLAUDE),
        ("max-tokens", "anthropic/text-anthropic.jsonl", "request = { max_tokens = 777 }",
         {"cache_markers"}),
        ("sampling", "anthropic/text-anthropic.jsonl",
         "request = { temperature = 0.3, top_p = 0.9, top_k = 40 }",
         {"temperature", "top_p", "top_k", "cache_markers"}),
        ("stop", "anthropic/text-anthropic.jsonl",
         'request = { stop_sequences = ["END"] }', {"stop"} | CLAUDE),
        ("cache", "anthropic/text-anthropic.jsonl",
         'request = { system = [{ type = "text", text = "Be terse.", '
         'cache_control = { type = "ephemeral", ttl = "1h" } }] }', CLAUDE),
        ("tool-choice", "anthropic/tool-call-anthropic.jsonl",
         'request = { tool_choice = { type = "any" } }', {"tool_choice", "cache_markers"}),
        ("structured", "anthropic/text-anthropic.jsonl",
         'request = { output_format = { type = "json_schema", schema = { type = "object" } } }',
         {"structured_output"} | CLAUDE),
        ("thinking", "anthropic/thinking-anthropic.jsonl", "reasoning = true", CLAUDE),
        ("beta", "anthropic/text-anthropic.jsonl",
         'headers = { "anthropic-beta" = "interleaved-thinking-2025-05-14" }', CLAUDE),
    ],
    "chat": [
        ("plain", "openai/azure-tool-call-openai.jsonl", "", set()),  # tool_choice auto
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
        ("plain", "responses/text-responses.jsonl", "", CODEX),
        ("max-tokens", "responses/text-responses.jsonl",
         "request = { max_output_tokens = 777 }", CODEX),
        ("sampling", "responses/text-responses.jsonl",
         "request = { temperature = 0.3, top_p = 0.9 }", {"temperature", "top_p"} | CODEX),
        ("tool-choice", "responses/tool-call-responses.jsonl",
         'request = { tool_choice = "required" }', {"tool_choice"} | CODEX),
        ("structured", "responses/text-responses.jsonl",
         'request = { text = { format = { type = "json_schema", name = "answer", strict = '
         'true, schema = { type = "object" } } } }', {"structured_output"} | CODEX),
        ("thinking", "responses/thinking-responses.jsonl", "reasoning = true", CODEX),
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
    for name, s in got.items():
        keys = {f.key for f in s.findings if f.source == "request"}
        # Claude Code and OpenCode always say one (Messages requires it)
        said = name == "max-tokens" or endpoint in ("messages", "chat")
        if said:
            assert keys == {"request:changed:max_output_tokens"}, (name, keys)
            assert s.verdict == "fail"
            message = next(f.message for f in s.findings if f.source == "request")
            assert "4096" in message
        else:
            assert keys == {"request:added:max_output_tokens"}, (name, keys)
            assert s.verdict == "pass", (name, [f.key for f in s.findings])


def test_a_lost_beta_header_fails_every_scenario(tmp_path: Path) -> None:
    """Claude Code sends its beta features on every request; the beta scenario's own header
    replaces them."""
    got = _run(tmp_path, "messages", {"drop-beta"})
    for name, s in got.items():
        assert _request_errors(s) == {"features"}, (name, [f.key for f in s.findings])
        f = next(f for f in s.findings if f.source == "request")
        assert f.key == "request:lost:features"
        flag = "interleaved-thinking-2025-05-14" if name == "beta" else "claude-code-20250219"
        assert flag in f.message, f.message


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


# -- sseconform diff --requests ----------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]


def test_diff_requests_names_each_parameter_and_exits_1_on_an_error(tmp_path: Path) -> None:
    from tests.cli.helpers import run_cli

    client = tmp_path / "client.json"
    client.write_text(
        '{"model": "m", "max_completion_tokens": 777, "tool_choice": "required", '
        '"temperature": 0.2, "messages": []}'
    )
    up = tmp_path / "up.json"
    up.write_text(
        '{"model": "c", "max_tokens": 4096, "messages": [], "tool_choice": {"type": "auto"}}'
    )
    run = run_cli("diff", "--requests", up, client, "--from", "anthropic", cwd=ROOT)
    assert run.code == 1, run.both
    assert run.out.splitlines() == [
        "error    request:changed:max_output_tokens  request.max_output_tokens: the client "
        "asked for max_completion_tokens 777; the upstream got max_tokens 4096",
        "warning  request:lost:temperature  request.temperature: the client asked for "
        "temperature 0.2; the upstream's request did not say it",
        "error    request:changed:tool_choice  request.tool_choice: the client asked for "
        """tool_choice 'required'; the upstream got tool_choice {"type": "auto"}""",
        "3 difference(s), 2 error(s)",
    ]
    same = run_cli("diff", "--requests", client, client, "--from", "openai", cwd=ROOT)
    assert same.code == 0 and "asks what" in same.out, same.both


def test_diff_requests_reads_a_recordings_request_and_its_dialect(tmp_path: Path) -> None:
    """A recording's URL says its dialect (no --from), its headers carry anthropic-beta."""
    from tests.cli.helpers import run_cli

    rec = ROOT / "recordings" / "anthropic" / "messages-text.jsonl"
    client = tmp_path / "client.json"
    client.write_text('{"model": "m", "max_tokens": 100, "messages": []}')
    run = run_cli("diff", "--requests", rec, client, "--gateway-from", "anthropic",
                  "--format", "json", cwd=ROOT)  # fmt: skip
    assert run.code == 1, run.both
    rows = __import__("json").loads(run.out)["requests"]
    assert [r["key"] for r in rows] == ["request:changed:max_output_tokens"]
    assert "max_tokens 256" in rows[0]["message"]


def test_diff_requests_refuses_what_is_no_request(tmp_path: Path) -> None:
    from tests.cli.helpers import run_cli

    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]")
    run = run_cli("diff", "--requests", bad, bad, "--from", "openai", cwd=ROOT)
    assert run.code == 2 and "a request body is a JSON object, not list" in run.err, run.both
    assert "Traceback" not in run.both
    missing = run_cli("diff", "--requests", tmp_path / "no.json", bad, "--from", "openai", cwd=ROOT)
    assert missing.code == 2 and "no.json" in missing.err and "Traceback" not in missing.both


@pytest.mark.parametrize("endpoint", ["messages", "chat", "responses"])
def test_a_lost_breakpoint_shows_in_the_usage_too(tmp_path: Path, endpoint: str) -> None:
    """The replay upstream reads its prompt cache only past a breakpoint, as Anthropic does:
    the usage of the answer a gateway's client gets shows a lost ``cache_control`` too
    (``diff:changed`` on the cached count), beside ``request:lost:cache_markers``. A
    Responses client has no word for a breakpoint: the usage it is graded against reads
    nothing from the cache, and a faithful gateway passes there too."""
    path = tmp_path / "cache.toml"
    path.write_text(
        f'speed = 0\nendpoint = "{endpoint}"\n[[scenario]]\nname = "cache-read"\n'
        'recording = "builtin:anthropic/usage-anthropic.jsonl"\nusage = true\n',
        encoding="utf-8",
    )
    suite = load_suite(str(path))
    verdicts: dict[str, Any] = {}
    for bugs in (set(), {"request-strip"}):
        port = free_port()  # the upstream's, which the gateway calls
        gw = Gateway(f"http://127.0.0.1:{port}", bugs)
        with gw.running():
            out = tmp_path / ("-".join(sorted(bugs)) or "faithful")
            result = run_suite(suite, gw.url, str(out), upstream_port=port)
        [verdicts["-".join(bugs) or "faithful"]] = result.scenarios
    faithful, stripped = verdicts["faithful"], verdicts["request-strip"]
    assert faithful.verdict == "pass", [(f.key, f.message) for f in faithful.findings]
    errors = {f.key for f in stripped.findings if f.severity == "error"}
    cached = by_endpoint(endpoint).usage_key("cached_tokens")
    if endpoint == "responses":
        assert not {k for k in errors if "cache" in k}, errors
        return
    assert {"request:lost:cache_markers", f"diff:changed:usage.{cached}"} <= errors, errors
    [usage] = [f for f in stripped.findings if f.key == f"diff:changed:usage.{cached}"]
    assert f"{cached} 0, where the upstream's answer" in usage.message
    assert "reads 2048 from the prompt cache" in usage.message
