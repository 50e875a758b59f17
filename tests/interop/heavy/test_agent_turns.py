"""Real agents run two turns through the demo gateway (sseconform/demo/gateway.py) against the
replay upstream, which checks each history as the provider does: Claude Code with thinking on
calls ``Glob``, runs it and sends the signed thinking back; Codex CLI calls ``exec_command``,
runs it and sends the encrypted reasoning back; Gemini CLI calls ``glob``, runs it and sends the
call part back with its ``thoughtSignature``; so does OpenCode (the AI SDK's Google provider),
which asks for no thoughts and so is shown none. What the agents' second requests carry, and
what each agent does when a gateway loses the state (or the upstream refuses it), is measured
here, so a change in either agent shows.

The turn-1 recordings call a tool no agent has; each test makes a variant, in its temp folder,
that calls one the agent runs without asking, every other byte kept (the signature, the
encrypted content). One CLI run per test, offline, 127.0.0.1 only. Needs
``bash tests/interop/heavy/install.sh`` (and ``install_gemini.sh``); skipped without them
unless ``SSECONFORM_REQUIRE_HEAVY=1``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from sseconform.gate.content import content_of
from sseconform.providers import GEMINI_CLI_SIGNATURE
from sseconform.replay.plan import Loaded, load
from sseconform.sse import SSEDecoder
from tests.conftest import ROOT
from tests.interop.heavy.clients import (
    CLAUDE,
    GEMINI_ENTRY,
    GEMINI_INSTALL,
    INSTALL,
    codex_binary,
)
from tests.interop.heavy.opencode import OPENCODE_INSTALL, opencode_version
from tests.interop.heavy.turns import (
    THINKING_BUDGET,
    Obj,
    Run,
    Upstream,
    anthropic_call,
    gemini_call,
    issued_state,
    responses_call,
    rewrite_recording,
    run_claude,
    run_codex,
    run_gemini,
    run_opencode,
    upstream,
)

REQUIRE = os.environ.get("SSECONFORM_REQUIRE_HEAVY") == "1"
RECORDINGS = ROOT / "recordings"
ANTHROPIC_LOOP = RECORDINGS / "anthropic" / "agent-loop-anthropic.jsonl"
ANTHROPIC_ANSWER = RECORDINGS / "anthropic" / "agent-answer-anthropic.jsonl"
RESPONSES_LOOP = RECORDINGS / "responses" / "agent-loop-responses.jsonl"
RESPONSES_ANSWER = RECORDINGS / "responses" / "agent-answer-responses.jsonl"
GEMINI_LOOP = RECORDINGS / "gemini" / "agent-loop-gemini.jsonl"
GEMINI_ANSWER = RECORDINGS / "gemini" / "agent-answer-gemini.jsonl"
PROMPT = "List the .txt files here."
GLOB = {"pattern": "*.txt"}
SHELL = {"cmd": "echo hi"}

#: What the replay answers a history it cannot accept (Anthropic's messages; the history is
#: the user's prompt, the assistant's turn, the tool result: the assistant's is messages.1).
BAD_SIGNATURE = "messages.1.content.0: Invalid `signature` in `thinking` block"
NOT_THINKING_FIRST = (
    "messages.1.content.0.type: Expected `thinking` or `redacted_thinking`, but found "
    "`tool_use`. When `thinking` is enabled, a final `assistant` message must start with a "
    "thinking block."
)
#: Claude Code's debug line when a 400 names a thinking block (it strips them and resends).
STRIPS = "[thinking] server rejected a thinking block; stripping all thinking blocks and retrying."


def _need(present: bool, name: str, install: str = INSTALL) -> None:
    if present:
        return
    if REQUIRE:
        pytest.fail(f"{name} is not installed: run {install}")
    pytest.skip(f"{name} is not installed: run {install}")


def _text(path: Path) -> str:
    rec = load(str(path))
    return content_of([rec.body], str(rec.dialect)).model.choices[0].text


def _call(rec: Loaded) -> tuple[str, str, Any]:
    """The recording's one call: (id, name, arguments)."""
    [call] = content_of([rec.body], str(rec.dialect)).model.choices[0].tool_calls.values()
    return str(call.id), str(call.name), json.loads(call.arguments)


def _tools(body: Obj) -> list[str]:
    return [str(t.get("name")) for t in body.get("tools") or []]


# -- Claude Code --------------------------------------------------------------------------------


def _claude_case(tmp_path: Path) -> tuple[Path, Path, str, str]:
    """The turn-1 variant calling Glob, the folder Claude Code runs in, the signature and the
    call id turn 1 issues."""
    _need(CLAUDE.is_file(), "Claude Code")
    loop = rewrite_recording(
        ANTHROPIC_LOOP, tmp_path / "loop-glob.jsonl", anthropic_call("Glob", GLOB)
    )
    [signature] = issued_state(load(str(ANTHROPIC_LOOP)))
    variant = load(str(loop))
    assert issued_state(variant) == {signature}
    call_id, name, args = _call(variant)
    assert (call_id, name, args) == (_call(load(str(ANTHROPIC_LOOP)))[0], "Glob", GLOB)
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("hi\n")
    return loop, work, signature, call_id


def _claude(tmp_path: Path, bugs: set[str]) -> tuple[Run, Upstream, list[str], str, str]:
    loop, work, signature, call_id = _claude_case(tmp_path)
    with upstream("anthropic", loop, ANTHROPIC_ANSWER, bugs) as up:
        run = run_claude(up.gateway.url, work, PROMPT, "Glob")
        log = up.settled()
    for seen in up.replay.seen:
        assert (seen.method, seen.path) == ("POST", "/v1/messages")
        body = seen.json
        assert body["stream"] is True and "Glob" in _tools(body)
        thinking = body["thinking"]
        assert (thinking["type"], thinking["budget_tokens"]) == ("enabled", THINKING_BUDGET)
    return run, up, log, signature, call_id


def _result(run: Run) -> Obj:
    [result] = [e for e in run.events if e.get("type") == "result"]
    return result


def test_claude_code_sends_the_signature_back_through_a_faithful_gateway(tmp_path: Path) -> None:
    run, up, log, signature, call_id = _claude(tmp_path, set())
    assert run.returncode == 0, run.stderr
    assert len(up.replay.seen) == 2, log
    assert up.refusals() == [None, None] and not any("refused" in line for line in log), log
    first, second = (s.json for s in up.replay.seen)
    assert [m["role"] for m in first["messages"]] == ["user"]
    user, assistant, results = second["messages"]
    assert user["role"] == "user" and any(b.get("text") == PROMPT for b in user["content"])
    thinking, call = assistant["content"]
    assert (thinking["type"], thinking["signature"]) == ("thinking", signature)  # byte for byte
    loop = load(str(ANTHROPIC_LOOP))
    assert thinking["thinking"] == content_of([loop.body], "anthropic").model.choices[0].reasoning
    assert call == {"type": "tool_use", "id": call_id, "name": "Glob", "input": GLOB}
    [result] = results["content"]
    assert (result["type"], result["tool_use_id"]) == ("tool_result", call_id)
    assert result["content"].startswith("notes.txt")  # Glob ran, in the work folder
    said = _result(run)
    assert (said["is_error"], said["num_turns"], said["stop_reason"]) == (False, 2, "end_turn")
    assert said["result"] == _text(ANTHROPIC_ANSWER)


#: Each turn-2 request the upstream received, in order: the first block of the assistant's
#: turn (and its signature), whether ``thinking.display`` was sent, whether ToolSearch was
#: declared (deferred tools), and the refusal. Claude Code 2.1.330 answers a 400 that names a
#: thinking block by stripping the thinking and resending; then resends without its
#: thinking-token-count beta (a header: the same body), then without ``thinking.display``;
#: then, all refused, starts over with the deferred tools declared in full (no ToolSearch).
Attempt = tuple[str, str | None, bool, bool, str | None]
CHAIN: dict[str, list[Attempt]] = {
    "drop-signatures": [
        ("thinking", "", True, True, BAD_SIGNATURE),
        ("tool_use", None, True, True, NOT_THINKING_FIRST),
        ("tool_use", None, True, True, NOT_THINKING_FIRST),
        ("tool_use", None, False, True, NOT_THINKING_FIRST),
        ("thinking", "", True, False, BAD_SIGNATURE),
        ("tool_use", None, True, False, NOT_THINKING_FIRST),
        ("tool_use", None, True, False, NOT_THINKING_FIRST),
        ("tool_use", None, False, False, NOT_THINKING_FIRST),
    ],
    # the gateway drops the thinking Claude Code sends back: the refusal never names a
    # thinking block, so Claude Code has none to strip (its debug log says no such thing)
    "drop-thinking-history": [
        ("tool_use", None, True, True, NOT_THINKING_FIRST),
        ("tool_use", None, True, True, NOT_THINKING_FIRST),
        ("tool_use", None, False, True, NOT_THINKING_FIRST),
        ("tool_use", None, True, False, NOT_THINKING_FIRST),
        ("tool_use", None, True, False, NOT_THINKING_FIRST),
        ("tool_use", None, False, False, NOT_THINKING_FIRST),
    ],
}


@pytest.mark.parametrize("bug", sorted(CHAIN))
def test_claude_code_when_the_upstream_refuses_turn_2(tmp_path: Path, bug: str) -> None:
    """Refused, Claude Code resends turn 2 as its recoveries say (every one refused), then
    ends: exit 1, a result with ``is_error`` (its subtype still ``success``) whose text is
    the provider's last message after ``API Error: 400``."""
    run, up, log, _, call_id = _claude(tmp_path, {bug})
    turn2 = up.replay.seen[1:]
    refusals = up.refusals()
    assert refusals[0] is None
    got: list[Attempt] = []
    for seen, refusal in zip(turn2, refusals[1:], strict=True):
        body = seen.json
        *_, assistant, results = body["messages"]
        first = assistant["content"][0]
        assert assistant["content"][-1]["id"] == call_id
        assert results["content"][0]["tool_use_id"] == call_id
        got.append(
            (
                first["type"],
                first.get("signature"),
                "display" in body["thinking"],
                "ToolSearch" in _tools(body),
                None if refusal is None else refusal.reason,
            )
        )
    assert got == CHAIN[bug], log
    assert sum("400" in line and "refused: " in line for line in log) == len(CHAIN[bug]), log
    assert (STRIPS in run.debug) is (bug == "drop-signatures")
    assert run.returncode == 1, run.stderr
    said = _result(run)
    assert (said["is_error"], said["subtype"], said["terminal_reason"]) == (
        True,
        "success",
        "api_error",
    )
    assert said["api_error_status"] == 400
    assert said["result"] == f"API Error: 400 {NOT_THINKING_FIRST}"
    answer = _text(ANTHROPIC_ANSWER)
    assert not any(answer in json.dumps(e) for e in run.events)


# -- Codex CLI ----------------------------------------------------------------------------------


def _items(rec: Loaded) -> dict[str, Obj]:
    """The recording's output items (``response.output_item.done``), by type."""
    dec = SSEDecoder()
    out = {}
    for ev in dec.feed(rec.body) + dec.finish():
        obj = json.loads(ev.data)
        if obj.get("type") == "response.output_item.done":
            out[obj["item"]["type"]] = obj["item"]
    return out


def _codex(
    tmp_path: Path, bugs: set[str], *, foreign: bool = False, requests: int = 2
) -> tuple[Run, Upstream]:
    _need(codex_binary() is not None, "Codex CLI")
    loop = rewrite_recording(
        RESPONSES_LOOP, tmp_path / "loop-exec.jsonl", responses_call("exec_command", SHELL)
    )
    variant = load(str(loop))
    assert issued_state(variant) == issued_state(load(str(RESPONSES_LOOP)))
    assert _call(variant)[1:] == ("exec_command", SHELL)
    work = tmp_path / "work"
    work.mkdir()
    with upstream("responses", loop, RESPONSES_ANSWER, bugs, foreign=foreign) as up:
        run = run_codex(up.gateway.url, work, PROMPT)
        up.settled()
    assert len(up.replay.seen) == requests, up.log  # turn 1, then turn 2 and its retries
    for seen in up.replay.seen:
        assert (seen.method, seen.path) == ("POST", "/v1/responses")
        body = seen.json
        assert body["stream"] is True and body["store"] is False
        assert body["include"] == ["reasoning.encrypted_content"] and "reasoning" in body
        assert "exec_command" in _tools(body)
    ran = [
        e["item"]
        for e in run.events
        if e.get("type") == "item.completed" and e["item"].get("type") == "command_execution"
    ]
    assert [(c["aggregated_output"], c["exit_code"]) for c in ran] == [("hi\n", 0)], run.events
    return run, up


def _turn2(up: Upstream) -> tuple[Obj, Obj, Obj]:
    """Turn 2's reasoning item, call and call output (nothing else but the prompt)."""
    second = up.replay.seen[1].json
    kept = ("reasoning", "function_call", "function_call_output")
    items = [it for it in second["input"] if it.get("type") in kept]
    assert [it["type"] for it in items] == list(kept)
    reasoning, call, output = items
    recorded = _items(load(str(RESPONSES_LOOP)))
    assert reasoning["id"] == recorded["reasoning"]["id"]
    call_id = recorded["function_call"]["call_id"]
    assert (call["call_id"], call["name"]) == (call_id, "exec_command")
    assert json.loads(call["arguments"]) == SHELL
    assert output["call_id"] == call_id and output["output"].endswith("Output:\nhi\n")
    return reasoning, call, output


def _said(run: Run) -> list[str]:
    return [
        e["item"]["text"]
        for e in run.events
        if e.get("type") == "item.completed" and e["item"].get("type") == "agent_message"
    ]


def test_codex_sends_the_encrypted_reasoning_back_through_a_faithful_gateway(
    tmp_path: Path,
) -> None:
    run, up = _codex(tmp_path, set())
    assert run.returncode == 0, run.stderr
    assert up.refusals() == [None, None] and not any("refused" in line for line in up.log)
    reasoning, _, _ = _turn2(up)
    [encrypted] = issued_state(load(str(RESPONSES_LOOP)))
    assert reasoning["encrypted_content"] == encrypted  # byte for byte
    assert _said(run) == [_text(RESPONSES_ANSWER)]
    assert not any(e.get("type") in ("error", "turn.failed") for e in run.events)


def test_codex_through_a_gateway_that_strips_the_encrypted_content(tmp_path: Path) -> None:
    """Codex sends the reasoning item back with ``encrypted_content: null`` (it keeps the
    item's id and summary); with ``store: false`` the provider has nothing to read it from
    and answers 404 "Item with id 'rs_...' not found". Codex takes a 404 for a transient
    failure: it sends turn 2 six times in all (five retries, its default), then fails the turn
    with the provider's message and exits 1."""
    run, up = _codex(tmp_path, {"strip-encrypted"}, requests=7)
    reasoning, _, _ = _turn2(up)
    assert "encrypted_content" in reasoning and reasoning["encrypted_content"] is None
    [first, *again] = up.refusals()[1:]
    assert first is not None and first.status == 404
    assert first.reason.startswith(f"Item with id '{reasoning['id']}' not found.")
    assert "Items are not persisted when `store` is set to false." in first.reason
    assert again == [first] * 5, again
    assert run.returncode == 1
    failed = [e["error"]["message"] for e in run.events if e.get("type") == "turn.failed"]
    assert len(failed) == 1 and "not persisted when `store` is set to false" in failed[0]
    assert _said(run) == []


def test_codex_when_the_upstream_refuses_turn_2(tmp_path: Path) -> None:
    """Turn 2 reaches an upstream that did not issue turn 1's encrypted content (another
    account behind the same gateway): refused 400 ``invalid_encrypted_content``. Codex does
    not retry it; it shows the provider's whole error body as the turn's error and exits 1."""
    run, up = _codex(tmp_path, set(), foreign=True)
    reasoning, _, _ = _turn2(up)
    [encrypted] = issued_state(load(str(RESPONSES_LOOP)))
    assert reasoning["encrypted_content"] == encrypted
    refusal = up.refusals()[1]
    assert refusal is not None and refusal.status == 400
    assert (
        refusal.reason == f"The encrypted content for item {reasoning['id']} could not be verified."
    )
    assert any("400" in line and f"refused: {refusal.reason}" in line for line in up.log)
    assert run.returncode == 1
    errors = [e["message"] for e in run.events if e.get("type") == "error"]
    failed = [e["error"]["message"] for e in run.events if e.get("type") == "turn.failed"]
    assert errors == failed and len(failed) == 1, run.events
    assert json.loads(failed[0]) == json.loads(refusal.body)  # the body, as the provider sent it
    assert _said(run) == []


# -- Gemini CLI ---------------------------------------------------------------------------------


def _gemini(tmp_path: Path, bugs: set[str]) -> tuple[Run, Upstream, str]:
    """Gemini CLI through the gateway with ``bugs``: its run, the upstream, and the signature
    turn 1's call part was issued with."""
    _need(GEMINI_ENTRY.is_file(), "Gemini CLI", GEMINI_INSTALL)
    loop = rewrite_recording(GEMINI_LOOP, tmp_path / "loop-glob.jsonl", gemini_call("glob", GLOB))
    [signature] = issued_state(load(str(GEMINI_LOOP)))
    assert issued_state(load(str(loop))) == {signature}
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("hi\n")
    with upstream("gemini", loop, GEMINI_ANSWER, bugs) as up:
        run = run_gemini(up.gateway.url, work, PROMPT)
        up.settled()
    for seen in up.replay.seen:
        assert seen.method == "POST" and seen.path.endswith(":streamGenerateContent?alt=sse")
    return run, up, signature


def _gemini_turn2(up: Upstream) -> tuple[Obj, Obj]:
    """Turn 2's model part (the call) and the function response after it."""
    *_, model, results = up.replay.seen[1].json["contents"]
    assert model["role"] == "model" and results["role"] == "user"
    [call] = model["parts"]  # the thought part is not in Gemini CLI's history
    [response] = results["parts"]
    return call, response


def _gemini_result(run: Run) -> Obj:
    [result] = [e for e in run.events if e.get("type") == "result"]
    return result


def _gemini_said(run: Run) -> str:
    return "".join(
        str(e.get("content") or "")
        for e in run.events
        if e.get("type") == "message" and e.get("role") == "assistant"
    )


def test_gemini_cli_sends_the_signature_back_through_a_faithful_gateway(tmp_path: Path) -> None:
    run, up, signature = _gemini(tmp_path, set())
    assert run.returncode == 0, run.stderr
    assert up.refusals() == [None, None] and not any("refused" in line for line in up.log)
    call, response = _gemini_turn2(up)
    assert call["thoughtSignature"] == signature  # byte for byte, on the call's part
    assert (call["functionCall"]["name"], call["functionCall"]["args"]) == ("glob", GLOB)
    answered = response["functionResponse"]
    assert answered["name"] == "glob" and answered["id"] == call["functionCall"]["id"]
    assert "notes.txt" in answered["response"]["output"]  # glob ran, in the work folder
    assert _gemini_result(run)["status"] == "success"
    assert _gemini_said(run) == _text(GEMINI_ANSWER)


def test_gemini_cli_through_a_gateway_that_drops_the_signature(tmp_path: Path) -> None:
    """The call part reaches Gemini CLI without its ``thoughtSignature``: Gemini CLI gives it
    its own skip value (its history hardening), which Gemini takes, so turn 2 goes on without
    the model's thoughts and nothing shows the loss (the gate reports it:
    ``diff:lost:state.thought-signature``)."""
    run, up, _ = _gemini(tmp_path, {"drop-signatures"})
    assert run.returncode == 0, run.stderr
    assert up.refusals() == [None, None]
    call, _ = _gemini_turn2(up)
    assert call["thoughtSignature"] == GEMINI_CLI_SIGNATURE
    assert _gemini_said(run) == _text(GEMINI_ANSWER)


def test_gemini_cli_when_the_upstream_refuses_turn_2(tmp_path: Path) -> None:
    """A signature the gateway changed on the way is refused (400, Gemini's own message);
    Gemini CLI does not retry a 400: its result is an error quoting the provider's body, and
    it exits non-zero."""
    run, up, signature = _gemini(tmp_path, {"rewrite-signatures"})
    call, _ = _gemini_turn2(up)
    assert call["thoughtSignature"] not in (signature, GEMINI_CLI_SIGNATURE)
    refusal = up.refusals()[1]
    assert refusal is not None and refusal.status == 400
    assert refusal.reason == "contents[1].parts[0]: Thought signature is not valid."
    assert len(up.replay.seen) == 2, up.log
    result = _gemini_result(run)
    assert result["status"] == "error" and refusal.reason in result["error"]["message"]
    assert run.returncode != 0
    assert _gemini_said(run) == ""


# -- OpenCode (the AI SDK's Google provider) ------------------------------------------------------


def _opencode(tmp_path: Path, bugs: set[str]) -> tuple[Run, Upstream, str]:
    """OpenCode on the gateway's Gemini route with ``bugs``: its run, the upstream, and the
    signature turn 1's call part was issued with."""
    _need(opencode_version() is not None, "OpenCode", OPENCODE_INSTALL)
    loop = rewrite_recording(GEMINI_LOOP, tmp_path / "loop-glob.jsonl", gemini_call("glob", GLOB))
    [signature] = issued_state(load(str(loop)))
    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("hi\n")
    with upstream("gemini", loop, GEMINI_ANSWER, bugs) as up:
        run = run_opencode(up.gateway.url, work, PROMPT)
        up.settled()
    assert len(up.replay.seen) == 2, up.log  # turn 1 and turn 2: no title request
    return run, up, signature


def _opencode_turn2(up: Upstream) -> tuple[Obj, Obj]:
    """Turn 2's model turn (its call part alone: OpenCode asks for no thoughts, so Gemini
    shows it none to send back) and the function response."""
    *_, model, results = up.replay.seen[1].json["contents"]
    assert model["role"] == "model" and results["role"] == "user"
    [call] = model["parts"]
    [response] = results["parts"]
    return call, response


def _opencode_error(run: Run) -> Obj | None:
    errors = [e["error"] for e in run.events if e.get("type") == "error"]
    return errors[0] if errors else None


def _opencode_said(run: Run) -> str:
    return "".join(p["part"]["text"] for p in run.events if p.get("type") == "text")


def test_opencode_sends_the_signature_back(tmp_path: Path) -> None:
    """OpenCode (the AI SDK's Google provider) asks for no thoughts (no ``includeThoughts``):
    Gemini answers without thought parts, and OpenCode sends the call part back signed."""
    run, up, signature = _opencode(tmp_path, set())
    assert run.returncode == 0, run.stderr
    assert up.refusals() == [None, None]
    turn1 = up.replay.seen[0].json
    thinking = turn1.get("generationConfig", {}).get("thinkingConfig", {})
    assert not thinking.get("includeThoughts"), thinking
    call, response = _opencode_turn2(up)
    assert call["thoughtSignature"] == signature  # byte for byte, on the call's part
    assert (call["functionCall"]["name"], call["functionCall"]["args"]) == ("glob", GLOB)
    answered = response["functionResponse"]
    assert answered["name"] == "glob" and "notes.txt" in answered["response"]["content"]
    assert _opencode_error(run) is None
    assert _opencode_said(run) == _text(GEMINI_ANSWER)


@pytest.mark.parametrize(
    ("bug", "reason"),
    [
        ("drop-signatures", "Function call is missing a thought_signature in functionCall parts"),
        ("rewrite-signatures", "contents[1].parts[0]: Thought signature is not valid."),
    ],
)
def test_opencode_through_a_gateway_that_loses_the_signature(
    tmp_path: Path, bug: str, reason: str
) -> None:
    """Where Gemini CLI puts its own skip value on a call part that came unsigned, OpenCode
    sends the part as it got it: without a signature Gemini refuses turn 2 (400), as it does a
    changed one, and OpenCode does not retry a 400: its turn ends in the provider's error.
    So for OpenCode a gateway that drops a Gemini signature breaks the agent."""
    run, up, _ = _opencode(tmp_path, {bug})
    call, _ = _opencode_turn2(up)
    assert ("thoughtSignature" in call) == (bug == "rewrite-signatures")
    refusal = up.refusals()[1]
    assert refusal is not None and refusal.status == 400 and refusal.reason.startswith(reason)
    error = _opencode_error(run)
    assert error is not None and error["data"]["statusCode"] == 400, run.events
    assert error["data"]["isRetryable"] is False and reason in error["data"]["message"]
    assert _opencode_said(run) == ""
