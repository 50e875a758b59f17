"""Gate on a gateway's /v1/messages and /v1/responses: suites aimed at an endpoint, profiles
that say which (endpoint, dialect) pairs a gateway serves, and each endpoint's request shape.

End to end: the test gateway's pass-through /v1/messages and /v1/responses (each mistake it can
make caught under its rule), and through real gateways tests/gate/test_litellm.py and
test_portkey.py."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from sseconform.demo.gateway import Gateway
from sseconform.errors import UsageError
from sseconform.gate.aimed import for_endpoint
from sseconform.gate.content import content_of
from sseconform.gate.grading import grade_recording
from sseconform.gate.profile import load_profile
from sseconform.gate.references import references
from sseconform.gate.report import endpoint_matrix
from sseconform.gate.request import GatewayRequests, request_body
from sseconform.gate.runner import run_suite
from sseconform.gate.suite import Suite, builtin_suite, load_suite, recordings_dir
from sseconform.providers import ENDPOINTS, endpoint_path
from sseconform.recording.format import Response, write_recording
from sseconform.replay.plan import load
from sseconform.replay.served import Served
from tests import snapshot
from tests.cli.helpers import run_cli
from tests.gate.test_gate import free_port, gate_cli

SNAPSHOTS = Path(__file__).parent / "snapshots"
TOOL = "builtin:anthropic/tool-call-anthropic.jsonl"


def _body(endpoint: str, usage: bool = False) -> dict[str, Any]:
    suite = for_endpoint(builtin_suite("anthropic"), endpoint)
    sc = next(s for s in suite.scenarios if s.name.endswith("/tool-call"))
    sc.usage = usage
    ref = content_of([load(sc.recording).body], "anthropic")
    return request_body(suite, sc, ref)


def test_chat_request() -> None:
    body = _body("chat", usage=True)
    assert body["messages"] and body["stream"] is True
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "get_weather",
                "description": "a tool of the anthropic/tool-call scenario",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ]
    assert body["stream_options"] == {"include_usage": True}


def test_messages_request_is_anthropic_s_shape() -> None:
    body = _body("messages", usage=True)
    assert body["max_tokens"] == 32000 and body["stream"] is True
    [message] = body["messages"]
    assert message["role"] == "user"
    [block] = message["content"]
    assert block["text"] == "sseconform gate scenario messages/anthropic/tool-call"
    assert block["cache_control"] == {"type": "ephemeral"}  # Claude Code's last breakpoint
    [tool] = body["tools"]
    assert set(tool) == {"name", "description", "input_schema"} and tool["name"] == "get_weather"
    assert "stream_options" not in body  # Anthropic streams usage unasked


def test_responses_request_is_the_responses_api_s_shape() -> None:
    body = _body("responses")
    assert body["input"] == "sseconform gate scenario responses/anthropic/tool-call"
    assert "messages" not in body
    [tool] = body["tools"]
    assert tool["type"] == "function" and tool["name"] == "get_weather" and "parameters" in tool


def test_gemini_request_is_gemini_s_shape() -> None:
    """As google-genai and Gemini CLI send it: ``contents`` of parts, one tool of
    ``functionDeclarations``; the model and the stream are in the URL, usage comes unasked."""
    body = _body("gemini", usage=True)
    assert body["contents"] == [
        {"role": "user", "parts": [{"text": "sseconform gate scenario gemini/anthropic/tool-call"}]}
    ]
    [tool] = body["tools"]
    [declared] = tool["functionDeclarations"]
    assert declared["name"] == "get_weather" and "parameters" in declared
    assert not {"model", "stream", "messages", "stream_options"} & set(body)


def test_gemini_asks_for_thoughts_as_gemini_cli_does() -> None:
    suite = for_endpoint(builtin_suite("anthropic"), "gemini")
    sc = next(s for s in suite.scenarios if s.name.endswith("/agent-loop"))
    ref = content_of([load(sc.recording).body], "anthropic")
    body = request_body(suite, sc, ref)
    assert body["generationConfig"] == {
        "temperature": 1,
        "topP": 0.95,
        "topK": 64,
        "thinkingConfig": {"includeThoughts": True, "thinkingBudget": 8192},
    }


def _run(endpoint: str, gateway: str, key: str | None = "k") -> GatewayRequests:
    suite = for_endpoint(builtin_suite("anthropic"), endpoint)
    return GatewayRequests(suite, gateway, "http://127.0.0.1:9", key)


@pytest.mark.parametrize("endpoint", list(ENDPOINTS))
@pytest.mark.parametrize(
    "gateway", ["http://127.0.0.1:4000", "http://127.0.0.1:4000/v1/chat/completions"]
)
def test_each_endpoint_has_its_path(endpoint: str, gateway: str) -> None:
    path = endpoint_path(ENDPOINTS[endpoint], "sseconform-anthropic")
    assert _run(endpoint, gateway).url("anthropic") == "http://127.0.0.1:4000" + path


def test_gemini_names_the_model_in_the_path() -> None:
    run = _run("gemini", "http://127.0.0.1:4000")
    assert run.url("openai") == (
        "http://127.0.0.1:4000/v1beta/models/sseconform-openai:streamGenerateContent?alt=sse"
    )
    assert run.url("openai", "gemini-2.5-flash").endswith(
        "/gemini-2.5-flash:streamGenerateContent?alt=sse"
    )


def test_messages_requests_carry_anthropic_headers() -> None:
    sc = builtin_suite("anthropic").scenarios[0]
    headers = dict(_run("messages", "http://127.0.0.1:4000").headers("anthropic", sc))
    assert headers["anthropic-version"] == "2023-06-01"
    assert headers["x-api-key"] == "k" and headers["authorization"] == "Bearer k"
    chat = dict(_run("chat", "http://127.0.0.1:4000").headers("anthropic", sc))
    assert "anthropic-version" not in chat and "x-api-key" not in chat
    gemini = dict(_run("gemini", "http://127.0.0.1:4000").headers("anthropic", sc))
    assert gemini["x-goog-api-key"] == "k" and "anthropic-version" not in gemini


def test_for_endpoint_names_the_scenarios_apart() -> None:
    base = builtin_suite("gemini")
    aimed = for_endpoint(base, "responses")
    assert aimed.endpoint == "responses" and aimed.name == "builtin:gemini (responses)"
    assert [s.name for s in aimed.scenarios] == [f"responses/{s.name}" for s in base.scenarios]
    assert base.scenarios[0].name == "gemini/text"  # the original is untouched
    assert for_endpoint(base, "chat") is base


def test_a_suite_file_names_its_endpoint(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(f'endpoint = "messages"\n[[scenario]]\nname = "a"\nrecording = "{TOOL}"\n')
    assert load_suite(str(path)).endpoint == "messages"
    path.write_text(f'endpoint = "grpc"\n[[scenario]]\nname = "a"\nrecording = "{TOOL}"\n')
    with pytest.raises(UsageError, match="endpoint: one of chat, messages, responses, gemini"):
        load_suite(str(path))


def test_shipped_profiles_say_which_pairs_they_serve() -> None:
    for name, dialect, refused in [
        ("litellm", "openai", "through the Responses API"),
        ("portkey", "gemini", "anthropic provider only"),
    ]:
        suite = for_endpoint(builtin_suite("all"), "messages")
        suite.profile = load_profile(name)
        why = suite.endpoint_refusal(dialect)
        assert why is not None and refused in why, why
        assert suite.endpoint_refusal("anthropic") is None
    # Portkey's /v1/responses passes OpenAI's Responses API through: the responses dialect is
    # served there, though its [dialect.responses] says no for the chat endpoint
    chat = builtin_suite("all")
    chat.profile = load_profile("portkey")
    assert not chat.supports("responses")
    suite = for_endpoint(builtin_suite("all"), "responses")
    suite.profile = chat.profile
    assert suite.supports("responses") and suite.endpoint_refusal("responses") is None
    assert "does not serve anthropic" in (suite.endpoint_refusal("anthropic") or "")


@pytest.mark.parametrize(
    ("table", "what"),
    [
        ('[endpoint.grpc]\npath = "/x"\n', "unknown endpoint"),
        ('[endpoint.messages]\ndialects = ["klingon"]\n', "dialects: a list of"),
        ("[endpoint.messages]\nsupported = 1\n", "supported must be true or false"),
        ('[endpoint.messages]\nfoo = "x"\n', "unknown key(s) foo"),
        ('[endpoint.messages]\npath = "v1/messages"\n', "a path that starts with /"),
        ('[endpoint.messages]\ngrammar = "open-responses"\n', "grammar: one of anthropic"),
        ('[endpoint.responses]\ngrammar = "chat"\n', "grammar: one of responses, open-responses"),
    ],
)
def test_bad_endpoint_tables_are_refused(tmp_path: Path, table: str, what: str) -> None:
    path = tmp_path / "p.toml"
    path.write_text(table)
    with pytest.raises(UsageError) as info:
        load_profile(str(path))
    assert what in str(info.value) and "[endpoint" in str(info.value)


def test_a_profile_s_chat_endpoint_path_is_used(tmp_path: Path) -> None:
    """``[endpoint.chat] path`` is the chat endpoint's path, as ``[endpoint.messages] path``
    is the messages endpoint's (it was accepted and ignored); a suite's own word wins."""
    path = tmp_path / "p.toml"
    path.write_text('name = "p"\n[endpoint.chat]\npath = "/openai/v1/chat/completions"\n')
    suite = builtin_suite("anthropic")
    suite.profile = load_profile(str(path))
    assert suite.path_for("anthropic") == "/openai/v1/chat/completions"
    suite.path = "/mine/chat/completions"
    assert suite.path_for("anthropic") == "/mine/chat/completions"


def test_cli_refuses_an_unknown_endpoint(tmp_path: Path) -> None:
    r = run_cli("gate", "--gateway", "http://127.0.0.1:9", "--endpoint", "grpc", cwd=tmp_path)
    assert r.code == 2 and "--endpoint 'grpc'" in r.err and "Traceback" not in r.err


# -- end to end: the test gateway's /v1/messages and /v1/responses (a pass-through) ---------------


def _gate_native(
    tmp_path: Path,
    endpoint: str,
    dialect: str,
    bugs: set[str],
    only: set[str] | None = None,
    aim: Callable[[Suite], Suite] | None = None,
) -> dict[str, Any]:
    """The built-in suite of ``dialect`` through the test gateway's ``endpoint`` (``aim``:
    aimed further, as ``gate --non-streaming`` aims it), at speed 0: each scenario's result."""
    suite = for_endpoint(builtin_suite(dialect), endpoint)
    if aim is not None:
        suite = aim(suite)
    suite.speed = 0
    if only is not None:
        suite.scenarios = [sc for sc in suite.scenarios if sc.name.rsplit("/", 1)[-1] in only]
    port = free_port()
    gw = Gateway(f"http://127.0.0.1:{port}", bugs)
    with gw.running():
        result = run_suite(suite, gw.url, str(tmp_path), upstream_port=port)
    return {s.name: s for s in result.scenarios}


NATIVE_PAIRS = [("messages", "anthropic"), ("responses", "responses"), ("gemini", "gemini")]
#: The check code that says a pass-through's stream was cut short, per endpoint.
CUT = {"messages": "A020", "responses": "S040", "gemini": "V006"}


@pytest.mark.parametrize(("endpoint", "dialect"), NATIVE_PAIRS)
def test_a_correct_pass_through_passes(tmp_path: Path, endpoint: str, dialect: str) -> None:
    got = _gate_native(tmp_path, endpoint, dialect, set())
    assert got and all(n.startswith(f"{endpoint}/{dialect}/") for n in got)
    # a pass-through keeps everything but a dropped upstream: it just ends the stream there
    dropped = f"{endpoint}/{dialect}/dropped-mid-stream"
    for name, s in got.items():
        if name == dropped:
            assert s.verdict == "fail", (name, s.findings)
            continue
        assert s.verdict == "pass", (name, [(f.code, f.message) for f in s.findings])
        assert not [f.message for f in s.findings if f.source == "request"], name
    assert got[f"{endpoint}/{dialect}/text"].endpoint == endpoint
    codes = {f.code for f in got[dropped].findings if f.severity == "error"}
    assert codes >= {CUT[endpoint]}, codes


@pytest.mark.parametrize(("endpoint", "dialect"), NATIVE_PAIRS)
def test_an_abort_mirrored_is_a_warning_a_clean_end_an_error(
    tmp_path: Path, endpoint: str, dialect: str
) -> None:
    """The upstream drops mid-stream. A gateway that drops its client's connection there too
    passes with warnings (every client raises: the failure is not hidden); one that ends the
    stream cleanly fails (no client can tell the cut answer from a whole one)."""
    only = {"dropped-mid-stream"}
    scenario = f"{endpoint}/{dialect}/dropped-mid-stream"
    cut = CUT[endpoint]
    clean = _gate_native(tmp_path / "clean", endpoint, dialect, set(), only)[scenario]
    assert clean.verdict == "fail"
    assert cut in {f.code for f in clean.findings if f.severity == "error"}
    aborted = _gate_native(tmp_path / "abort", endpoint, dialect, {"abort-on-drop"}, only)
    s = aborted[scenario]
    assert s.verdict == "pass", [(f.code, f.severity, f.message) for f in s.findings]
    warned = {f.code: f for f in s.findings if f.severity == "warning"}
    assert "aborted" in warned, s.findings
    assert not [f for f in s.findings if f.severity == "error"]
    assert "every client raises" in warned["aborted"].message
    assert s.note == "aborted, as the upstream did"


TRANSLATED_PAIRS = [
    (e, d)
    for e, own in (("messages", "anthropic"), ("responses", "responses"), ("gemini", "gemini"))
    for d in ("anthropic", "gemini", "responses", "openai")
    if d != own
]


@pytest.mark.parametrize(("endpoint", "dialect"), TRANSLATED_PAIRS)
def test_a_correct_translating_gateway_passes(tmp_path: Path, endpoint: str, dialect: str) -> None:
    """Every other dialect's upstream, translated into the endpoint's grammar as it arrives:
    every scenario passes, an upstream failure included (the grammar's own error)."""
    got = _gate_native(tmp_path, endpoint, dialect, set())
    assert got
    for name, s in got.items():
        # a stored response is continued on /v1/responses alone
        # (and Gemini's grammar sends a call whole: no slow-call on its endpoint)
        na = name.endswith("/previous-response") or (
            endpoint == "gemini" and name.endswith("/slow-call")
        )
        want = "not-applicable" if na else "pass"
        assert s.verdict == want, (name, [(f.code, f.message) for f in s.findings])
        # what the client asked reaches the upstream in its words: not even a warning
        assert not [f.message for f in s.findings if f.source == "request"], name
    assert got[f"{endpoint}/{dialect}/dropped-mid-stream"].expect == "error"


@pytest.mark.parametrize(
    ("endpoint", "dialect", "bug", "scenario", "codes"),
    [
        ("messages", "anthropic", "drop-block-start", "text", {"A003"}),
        ("messages", "anthropic", "repeat-message-start", "tool-call", {"A002"}),
        ("responses", "responses", "skip-sequence", "text", {"S010"}),
        ("responses", "responses", "done-differs", "text", {"S030"}),
    ],
)
def test_each_native_bug_is_caught_under_its_rule(
    tmp_path: Path, endpoint: str, dialect: str, bug: str, scenario: str, codes: set[str]
) -> None:
    got = _gate_native(tmp_path, endpoint, dialect, {bug})
    s = got[f"{endpoint}/{dialect}/{scenario}"]
    found = {f.code for f in s.findings if f.severity == "error" and f.source == "check"}
    assert s.verdict == "fail" and codes <= found, (bug, [(f.code, f.message) for f in s.findings])
    for f in s.findings:  # located at the start of an event really in the recorded stream
        if f.offset is not None and f.excerpt is not None:
            assert f.excerpt.startswith(("event:", "data:")), f


@pytest.mark.parametrize(
    ("bug", "key"),
    [
        ("drop-signatures", "diff:lost:state.signature"),
        ("rewrite-signatures", "diff:changed:state.signature"),
    ],
)
def test_a_pass_through_that_loses_the_state_fails_the_scenario_that_has_it(
    tmp_path: Path, bug: str, key: str
) -> None:
    """The opaque state a client must send back (a thinking block's signature) reaches it
    byte for byte through a pass-through, or the scenario fails naming the piece; the
    scenarios without state still pass."""
    got = _gate_native(tmp_path, "messages", "anthropic", {bug}, only={"reasoning", "text"})
    s = got["messages/anthropic/reasoning"]
    errors = [f for f in s.findings if f.severity == "error"]
    assert s.verdict == "fail" and [f.key for f in errors] == [key], s.findings
    assert "thinking block 0's signature: the upstream sent 184 bytes" in errors[0].message
    assert got["messages/anthropic/text"].verdict == "pass"


@pytest.mark.parametrize(
    ("bug", "keys"),
    [
        # Gemini CLI gives a call that came without one its own skip value, which Gemini
        # takes: turn 2 goes on, without the model's thoughts
        ("drop-signatures", ["diff:lost:state.thought-signature"]),
        ("rewrite-signatures", ["diff:changed:state.thought-signature", "turn2:history:refused"]),
        ("drop-thinking-history", ["turn2:history:refused", "turn2:history:lost"]),
    ],
)
def test_a_gemini_pass_through_that_loses_thought_signatures_fails(
    tmp_path: Path, bug: str, keys: list[str]
) -> None:
    """A function call part's ``thoughtSignature`` reaches a Gemini client byte for byte and
    comes back with the part on turn 2, or the scenario fails: for the signature lost on the
    way, and when Gemini refuses the history (HTTP 400, its own message); the scenarios
    without a call still pass."""
    got = _gate_native(tmp_path, "gemini", "gemini", {bug}, only={"agent-loop", "text"})
    s = got["gemini/gemini/agent-loop"]
    errors = [f for f in s.findings if f.severity == "error"]
    assert s.verdict == "fail" and [f.key for f in errors] == keys, errors
    assert got["gemini/gemini/text"].verdict == "pass"


FORWARDING = [
    ("messages", "anthropic"),
    ("messages", "gemini"),
    ("responses", "responses"),
    ("gemini", "gemini"),
    ("gemini", "anthropic"),
]


@pytest.mark.parametrize(("endpoint", "dialect"), FORWARDING)
def test_a_gateway_that_forwards_no_tools_fails_the_scenarios_that_declare_them(
    tmp_path: Path, endpoint: str, dialect: str
) -> None:
    """The upstream answers from its recording whether or not the gateway forwarded the
    client's tools: the tools the upstream's request declared are compared with the
    client's, so a gateway that drops them fails (a real model could never call them)."""
    got = _gate_native(tmp_path, endpoint, dialect, {"drop-tools"}, only={"tool-call", "text"})
    s = got[f"{endpoint}/{dialect}/tool-call"]
    errors = [f for f in s.findings if f.severity == "error"]
    assert s.verdict == "fail" and [f.key for f in errors] == ["diff:lost:request.tools"], errors
    assert "the client declared 'get_weather'; the upstream's request did not" in errors[0].message
    assert got[f"{endpoint}/{dialect}/text"].verdict == "pass"
    fine = _gate_native(tmp_path / "ok", endpoint, dialect, set(), only={"tool-call"})
    assert fine[f"{endpoint}/{dialect}/tool-call"].verdict == "pass"


def _encrypted_reasoning(tmp_path: Path) -> Path:
    """The built-in Responses reasoning recording as a stateless client (Codex) gets it:
    each reasoning item with its ``encrypted_content`` (a Fernet-shaped token)."""
    blob = "gAAAAAB" + base64.urlsafe_b64encode(hashlib.sha256(b"rs").digest() * 8).decode()
    source = recordings_dir() / "responses" / "thinking-responses.jsonl"
    lines = []
    for line in source.read_text(encoding="utf-8").splitlines():
        obj = json.loads(line)
        if isinstance(obj.get("text"), str):
            obj["text"] = obj["text"].replace(
                '"type":"reasoning","summary"',
                f'"type":"reasoning","encrypted_content":"{blob}","summary"',
            )
        lines.append(json.dumps(obj))
    out = tmp_path / "encrypted-reasoning-responses.jsonl"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert out.read_text().count(blob) >= 2  # the item's added and done events
    return out


@pytest.mark.parametrize("bugs", [set(), {"strip-encrypted"}])
def test_encrypted_reasoning_reaches_a_responses_client_byte_for_byte(
    tmp_path: Path, bugs: set[str]
) -> None:
    rec = _encrypted_reasoning(tmp_path)
    toml = tmp_path / "s.toml"
    toml.write_text(
        f'endpoint = "responses"\n[[scenario]]\nname = "enc"\nrecording = "{rec}"\n'
        'upstream = "responses"\n',
        encoding="utf-8",
    )
    suite = load_suite(str(toml))
    suite.speed = 0
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", bugs).running() as gw:
        result = run_suite(suite, gw.url, str(tmp_path / "out"), upstream_port=port)
    [s] = result.scenarios
    errors = [f for f in s.findings if f.severity == "error"]
    if not bugs:
        assert s.verdict == "pass" and errors == [], s.findings
        return
    assert s.verdict == "fail" and [f.key for f in errors] == [
        "diff:lost:state.encrypted-content"
    ], s.findings
    assert "reasoning item 0's encrypted_content: the upstream sent 351 bytes" in errors[0].message


# -- the endpoint matrix (scenario x endpoint), as a gate over several endpoints prints it -------


def _sc(name: str, endpoint: str, verdict: str, *findings: tuple[str, str]) -> dict[str, Any]:
    prefix = "" if endpoint == "chat" else f"{endpoint}/"
    return {
        "name": prefix + name,
        "endpoint": endpoint,
        "verdict": verdict,
        "findings": [{"key": k, "severity": sev} for k, sev in findings],
    }


def test_endpoint_matrix_has_a_column_per_endpoint() -> None:
    scenarios = [
        _sc("anthropic/text", "chat", "pass"),
        _sc("anthropic/text", "messages", "pass", ("A012", "warning")),
        _sc("anthropic/text", "responses", "known", ("S024", "error")),
        _sc("openai/usage", "chat", "fail", ("U004", "error"), ("F005", "warning")),
        _sc("openai/usage", "messages", "not-applicable"),
        _sc("openai/usage", "responses", "unreached"),
        _sc("gemini/<script>\x1b[31m", "messages", "pass"),
    ]
    snapshot.compare(SNAPSHOTS / "endpoint-matrix.txt", endpoint_matrix(scenarios) + "\n")


def test_gate_over_every_endpoint_prints_the_matrix(tmp_path: Path) -> None:
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", set()).running() as gw:
        report = tmp_path / "report.txt"
        run = gate_cli(tmp_path, gw.url, port, "--endpoint", "all", "-o", str(report),
                       only="*anthropic/text")  # fmt: skip
    assert run.code == 0, run.both
    text = report.read_text()
    head = next(line for line in text.splitlines() if line.startswith("scenario "))
    assert head.split() == ["scenario", "chat", "messages", "responses", "gemini"]
    assert re.search(r"^anthropic/text +pass +pass +pass +pass$", text, re.M), text


@pytest.mark.parametrize(("status", "verdict"), [(500, "pass"), (502, "pass"), (400, "fail")])
def test_an_error_status_before_the_stream_began(tmp_path: Path, status: int, verdict: str) -> None:
    """The upstream dropped mid-stream before the gateway had sent anything of its own (a
    gateway that waits for the first chunk): a retryable status hides nothing, since a client
    would have raised on the cut stream and retries this; a 400 makes it give up."""
    sc = next(
        s for s in builtin_suite("anthropic").scenarios if s.name.endswith("dropped-mid-stream")
    )
    sc = replace(sc, fault="drop-after-events=8")  # after some text: there was output
    rec = load(sc.recording)
    ref = references(sc, rec, "anthropic")
    assert ref.first is not None and ref.first.model.choices[0].text
    path = tmp_path / "gw.jsonl"
    body = b'{"error": {"message": "upstream connection lost", "type": "server_error"}}'
    write_recording(path, [(0.1, body)], response=Response(status, "", "", []))
    served = Served("127.0.0.1:1", "POST", "/v1/messages", rec.name, 200, sc.fault or "")
    served.fire("drop", 0.5)
    g = grade_recording(
        sc, ref, str(path), status, [served], complete=True, reason="eof", allow=[],
        endpoint="chat",
    )  # fmt: skip
    errors = [f for f in g.findings if f.severity == "error"]
    assert (not errors) == (verdict == "pass"), g.findings
    if verdict == "pass":
        assert (
            g.note == f"rejected with HTTP {status} (the upstream failed before the stream began)"
        )


def test_a_profile_that_claims_open_responses_checks_the_specification(tmp_path: Path) -> None:
    """``grammar = "open-responses"`` in a profile's ``[endpoint.responses]``: the gateway's
    streams are checked as the specification's. The test gateway passes OpenAI's stream on as
    it is, with no ``data: [DONE]``: fine for the responses grammar, O005 for the spec."""
    profile = tmp_path / "spec.toml"
    profile.write_text('name = "spec"\n[endpoint.responses]\ngrammar = "open-responses"\n')
    suite = for_endpoint(builtin_suite("responses"), "responses")
    suite.speed = 0
    suite.scenarios = [sc for sc in suite.scenarios if sc.name.endswith("/text")]
    plain = replace(suite)
    suite.profile = load_profile(str(profile))
    assert suite.grammar == "open-responses" and plain.grammar == "responses"
    port = free_port()
    gw = Gateway(f"http://127.0.0.1:{port}", set())
    with gw.running():
        claimed = run_suite(suite, gw.url, str(tmp_path / "spec"), upstream_port=port)
        own = run_suite(plain, gw.url, str(tmp_path / "own"), upstream_port=port)
    [s] = claimed.scenarios
    found = {f.code: f for f in s.findings if f.source == "check"}
    assert s.verdict == "fail" and "O005" in found, [(f.code, f.message) for f in s.findings]
    assert "without `data: [DONE]`" in found["O005"].message
    [o] = own.scenarios
    assert o.verdict == "pass" and not [f for f in o.findings if f.code.startswith("O")]
