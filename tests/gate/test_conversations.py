"""Conversations: ``gate`` sends a second turn as each endpoint's agent does, the replay
upstream checks the history it gets back as the provider does, and a gateway that loses
the state (or the history, or the tools) on the way to the client or back fails, with a
finding that names what was lost and in which turn.

End to end through the demo gateway (sseconform/demo/gateway.py, its state modes); the turn-2
request builders and the suite's TOML on their own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest

from sseconform.demo.gateway import Gateway
from sseconform.errors import UsageError
from sseconform.gate.aimed import for_endpoint
from sseconform.gate.result import ScenarioResult, SuiteResult
from sseconform.gate.runner import run_suite
from sseconform.gate.suite import builtin_suite, load_suite, recordings_dir
from sseconform.gate.turns import next_body
from sseconform.html.gate import render
from sseconform.recording.redact import Redactor
from sseconform.replay.history import returned_of
from sseconform.replay.plan import load
from sseconform.replay.routing import RequestBody, tag_of
from sseconform.translate import translate_body
from sseconform.wires import assistant_turn
from tests.gate.test_gate import free_port
from tests.html.dom import Node, parse

ENDPOINTS = ("chat", "messages", "responses")
DIALECTS = ("anthropic", "gemini", "responses", "openai")
LOOP = recordings_dir() / "anthropic" / "agent-loop-anthropic.jsonl"
ANSWER = recordings_dir() / "anthropic" / "agent-answer-anthropic.jsonl"


def _gate(
    tmp_path: Path,
    endpoint: str,
    bugs: set[str],
    only: tuple[str, ...] = ("agent-loop",),
    evidence: bool = False,
) -> dict[str, ScenarioResult]:
    suite = for_endpoint(builtin_suite("all"), endpoint)
    suite.speed = 0
    suite.scenarios = [sc for sc in suite.scenarios if sc.name.rsplit("/", 1)[-1] in only]
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", bugs).running() as gw:
        result = run_suite(
            suite, gw.url, str(tmp_path), upstream_port=port, confirm_timing=False,
            evidence=evidence,
        )  # fmt: skip
    return {s.name.removeprefix(f"{endpoint}/"): s for s in result.scenarios}


def _errors(s: ScenarioResult) -> list[str]:
    return [f.key for f in s.findings if f.severity == "error"]


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_faithful_gateway_passes_every_conversation(tmp_path: Path, endpoint: str) -> None:
    """Turn 1 carries thinking and a call; turn 2 sends the history back with the state in
    it and a tool result, and gets the final answer: through the same dialect and across."""
    got = _gate(tmp_path, endpoint, set(), ("agent-loop", "previous-response"))
    checked = 0
    for dialect in DIALECTS:
        s = got[f"{dialect}/agent-loop"]
        assert s.verdict == "pass", (dialect, [f.message for f in s.findings])
        assert s.upstream_requests == 2 and len(s.turns) == 1, s.upstream_log
        assert "agent-answer" in s.upstream_log[1]
        checked += 1
    stored = got["responses/previous-response"]
    assert stored.verdict == ("pass" if endpoint == "responses" else "not-applicable")
    assert checked == 4


MESSAGES_BUGS = [
    # (mode, turn 1's error, turn 2's error)
    ("drop-signatures", "diff:lost:state.signature", "turn2:history:refused"),
    ("rewrite-signatures", "diff:changed:state.signature", "turn2:history:refused"),
]


@pytest.mark.parametrize(("bug", "first", "second"), MESSAGES_BUGS)
def test_a_gateway_that_loses_signatures_fails_both_turns(
    tmp_path: Path, bug: str, first: str, second: str
) -> None:
    got = _gate(tmp_path, "messages", {bug}, ("agent-loop", "text"))
    s = got["anthropic/agent-loop"]
    assert s.verdict == "fail" and _errors(s) == [first, second], s.findings
    refused = next(f for f in s.findings if f.key == second)
    assert refused.turn == 2 and refused.message.startswith("turn 2: the upstream refused")
    assert "Invalid `signature` in `thinking` block" in refused.message
    assert got["anthropic/text"].verdict == "pass"  # a scenario it does not touch


def test_a_gateway_that_strips_encrypted_content_fails(tmp_path: Path) -> None:
    got = _gate(tmp_path, "responses", {"strip-encrypted"}, ("agent-loop", "text"))
    s = got["responses/agent-loop"]
    assert s.verdict == "fail" and "diff:lost:state.encrypted-content" in _errors(s)
    assert got["responses/text"].verdict == "pass"


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_a_history_forwarded_without_its_thinking_fails_turn_2(
    tmp_path: Path, endpoint: str
) -> None:
    """The client sent the thinking back; the gateway's upstream request lost it. Anthropic
    refuses the turn (thinking on, a tool call without a thinking block first), and every
    dialect's lost state is named."""
    got = _gate(tmp_path, endpoint, {"drop-thinking-history"}, ("agent-loop", "text"))
    s = got["anthropic/agent-loop"]
    assert _errors(s) == ["turn2:history:refused", "turn2:history:lost"], s.findings
    assert (
        "Expected `thinking` or `redacted_thinking`, but found `tool_use`" in s.findings[0].message
    )
    assert "184 bytes starting 'EuSg4X0Q1UCZ'" in s.findings[1].message
    assert "turn2:history:lost" in _errors(got["responses/agent-loop"])
    assert got["anthropic/text"].verdict == "pass"


def test_a_gateway_that_forwards_no_tools_fails_each_turn(tmp_path: Path) -> None:
    """Every dialect's conversation loses its tools on both turns; a single-turn scenario
    that declares none (``text``), through the same gateway, is not charged with losing
    them."""
    got = _gate(tmp_path, "chat", {"drop-tools"}, ("agent-loop", "text"))
    for dialect in DIALECTS:
        s = got[f"{dialect}/agent-loop"]
        assert s.verdict == "fail", dialect
        assert _errors(s) == ["diff:lost:request.tools", "turn2:diff:lost:request.tools"], s
        text = got[f"{dialect}/text"]
        assert text.verdict == "pass", (dialect, [f.message for f in text.findings])
        assert not [f for f in text.findings if f.field == "request.tools"], text.findings
        assert text.upstream_requests == 1 and not text.turns  # single-turn: untouched


# -- the next turn, as each endpoint's agent sends it ---------------------------------------


def _gateway_answer(endpoint: str) -> bytes:
    grammar = {"chat": "chat", "messages": "anthropic", "responses": "responses"}[endpoint]
    return b"".join(translate_body([load(str(LOOP)).body], "anthropic", to=grammar))


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_the_assistant_turn_keeps_the_signature_and_the_call(endpoint: str) -> None:
    sig = next(iter(_issued()))
    body = _gateway_answer(endpoint)
    for pieces in ([body], [body[i : i + 7] for i in range(0, len(body), 7)]):
        answer = assistant_turn(endpoint, b"".join(pieces))
        assert len(answer.calls) == 1 and answer.calls[0].startswith("toolu_")
        assert sig in orjson.dumps(answer.parts).decode()
    first: dict[str, Any] = {"model": "m", "stream": True}
    if endpoint == "responses":
        first["input"] = "Weather in Lisbon? [sseconform:a.1]"
    else:
        first["messages"] = [{"role": "user", "content": "Weather in Lisbon? [sseconform:a.1]"}]
    nxt = next_body(endpoint, first, answer, "18 °C", "a.1.t2")
    raw = orjson.dumps(nxt)
    assert tag_of(raw) == "a.1.t2"  # the last tag: the turn's own, after the prompt's
    returned = returned_of(RequestBody(raw))
    assert returned is not None and sig in returned.values and returned.results == 1
    if endpoint == "messages":
        assistant, user = nxt["messages"][1:]
        assert [b["type"] for b in assistant["content"]] == ["thinking", "tool_use"]
        assert assistant["content"][1]["input"] == {"city": "Lisbon, Portugal", "unit": "celsius"}
        assert user["content"][0]["tool_use_id"] == answer.calls[0]
    elif endpoint == "responses":
        kinds = [i.get("type", i.get("role")) for i in nxt["input"]]
        assert kinds == ["user", "reasoning", "function_call", "function_call_output"]
    else:
        assistant, tool = nxt["messages"][1:]
        assert assistant["tool_calls"][0]["id"] == tool["tool_call_id"]
        assert assistant["reasoning_details"][0]["signature"] == sig


def _issued() -> set[str]:
    from sseconform.replay.history import issued_of

    return issued_of([load(str(LOOP))]).values


def test_previous_response_sends_the_outputs_alone() -> None:
    body = b"".join(
        translate_body([load(str(recordings_dir() / "responses/agent-loop-responses.jsonl")).body],
                       "responses", to="responses")
    )  # fmt: skip
    answer = assistant_turn("responses", body)
    nxt = next_body(
        "responses", {"input": "hi", "store": True}, answer, "ok", "t", "previous-response"
    )
    assert nxt["previous_response_id"] == answer.response_id
    assert [i["type"] for i in nxt["input"]] == ["function_call_output"]


def test_a_thinking_signature_in_a_request_body_is_not_taken_for_a_credential() -> None:
    """A conversation's request carries the provider's signatures: recorded as they are
    (and never masked in later recordings); a credential named ``signature`` still is."""
    r = Redactor()
    body = {"messages": [{"role": "assistant", "content": [
        {"type": "thinking", "thinking": "t", "signature": "EuSg4X0Q1UCZ-sig"}]}],
        "contents": [{"role": "model", "parts": [
            {"functionCall": {"name": "f"}, "thoughtSignature": "CsHFyFCQ-sig"}]}],
        "webhook": {"signature": "hmac-secret-value"}}  # fmt: skip
    out = r.body(body)
    assert out["messages"][0]["content"][0]["signature"] == "EuSg4X0Q1UCZ-sig"
    assert out["contents"][0]["parts"][0]["thoughtSignature"] == "CsHFyFCQ-sig"
    assert out["webhook"]["signature"] == "[REDACTED]"


# -- suites declare their own conversations ---------------------------------------------------


def _suite(tmp_path: Path, scenario: str) -> Path:
    path = tmp_path / "suite.toml"
    path.write_text(
        f'name = "conv"\n[[scenario]]\nname = "loop"\nrecording = "{LOOP}"\n{scenario}',
        encoding="utf-8",
    )
    return path


def test_a_suite_declares_a_conversation(tmp_path: Path) -> None:
    su = load_suite(str(_suite(tmp_path, (
        f'reasoning = true\n[[scenario.turn]]\nrecording = "{ANSWER}"\nresult = "sunny"\n'
    ))))  # fmt: skip
    [sc] = su.scenarios
    assert sc.reasoning and sc.history == "full"
    assert [(Path(t.recording).name, t.result) for t in sc.turns] == [(ANSWER.name, "sunny")]


BAD_TURNS = [
    ('[[scenario.turn]]\nresult = "x"\n', "needs recording"),
    (f'[[scenario.turn]]\nrecording = "{ANSWER}"\nwhen = 1\n', "unknown key"),
    ('[[scenario.turn]]\nrecording = "missing.jsonl"\n', "no such file"),
    ('history = "stored"\n', "history must be one of"),
    ('reasoning = "yes"\n', "reasoning must be true or false"),
]


@pytest.mark.parametrize(("toml", "said"), BAD_TURNS)
def test_bad_turns_are_refused_with_where(tmp_path: Path, toml: str, said: str) -> None:
    with pytest.raises(UsageError) as err:
        load_suite(str(_suite(tmp_path, toml)))
    assert said in str(err.value) and "scenario 1" in str(err.value)


def test_the_report_names_the_turn(tmp_path: Path) -> None:
    got = _gate(tmp_path, "messages", {"drop-signatures"})
    data = got["anthropic/agent-loop"].to_dict()
    turns = [(f["turn"], f["key"]) for f in data["findings"] if f["severity"] == "error"]
    assert turns == [(1, "diff:lost:state.signature"), (2, "turn2:history:refused")]
    assert data["turn_recordings"][0].endswith(".turn2.jsonl")
    assert json.loads(Path(data["turn_recordings"][0]).read_text().splitlines()[0])


def _turn_columns(s: ScenarioResult) -> dict[str, Node]:
    dom = parse(render([SuiteResult("builtin:all", "http://127.0.0.1:9", "", [s])]))
    section = dom.find("section", "scenario")
    return {n.attrs["data-turn"]: n for n in section.find("div", "turns").find_all("div", "turn")}


def _request(column: Node, side: str) -> str:
    return column.find("div", "request", data_request=side).text


def test_the_page_shows_both_turns_side_by_side_with_their_requests(tmp_path: Path) -> None:
    """A column per turn: what the client sent the gateway, what the gateway forwarded, what
    the upstream sent and what the client got; where the gateway dropped the thinking from
    the history, turn 2's forwarded request shows it gone and the upstream's refusal."""
    signature = "EuSg4X0Q1UCZ"
    faithful = _gate(tmp_path / "ok", "messages", set(), evidence=True)["anthropic/agent-loop"]
    cols = _turn_columns(faithful)
    assert sorted(cols) == ["1", "2"]
    for side in ("client", "upstream"):
        assert "scenario messages/anthropic/agent-loop" in _request(cols["1"], side)
        assert "get_weather" in _request(cols["1"], side)
    assert signature in _request(cols["2"], "client") and signature in _request(
        cols["2"], "upstream"
    )
    assert "tool_result" in _request(cols["2"], "upstream")
    got = cols["2"].find("div", "gw").text
    assert "It is 18 °C and sunny in Lisbon right now." in got  # turn 2's answer

    dropped = _gate(tmp_path / "bad", "messages", {"drop-thinking-history"}, evidence=True)
    cols = _turn_columns(dropped["anthropic/agent-loop"])
    assert signature in _request(cols["2"], "client")
    assert signature not in _request(cols["2"], "upstream")
    refused = cols["2"].find("div", "up").text
    assert "Expected `thinking` or `redacted_thinking`, but found `tool_use`" in refused


def test_the_chat_turn_accumulates_as_openai_python_does() -> None:
    """``type`` is replaced, never joined (a gateway that repeats ``"type": "function"`` in
    every tool delta, as LiteLLM does, still gets a call of type ``function`` back)."""

    def chunk(delta: dict[str, Any]) -> bytes:
        return b"data: " + orjson.dumps({"choices": [{"index": 0, "delta": delta}]}) + b"\n\n"

    head = {"index": 0, "id": "call_1", "type": "function",
            "function": {"name": "get_weather", "arguments": ""}}  # fmt: skip
    more = [
        {"index": 0, "type": "function", "function": {"arguments": a}} for a in ('{"a"', ": 1}")
    ]
    body = b"".join(chunk({"tool_calls": [tc]}) for tc in [head, *more]) + b"data: [DONE]\n\n"
    [message] = assistant_turn("chat", body).parts
    [call] = message["tool_calls"]
    assert call == {"id": "call_1", "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"a": 1}'}}  # fmt: skip
