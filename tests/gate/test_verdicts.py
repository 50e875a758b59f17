"""Verdicts that do not mislead the person reading them: a run that tested nothing is not
green, a profile names the endpoints it is graded on, and the totals say how many passed
clean when some passed only for known deviations."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from sseconform.gate import report
from sseconform.gate.options import GateOptions, prepare_suites
from sseconform.gate.result import ScenarioResult, SuiteResult
from sseconform.rules.finding import Finding
from tests import snapshot
from tests.cli.helpers import run_cli
from tests.conftest import ROOT
from tests.gate.test_counts import _scenario
from tests.gate.test_gate import free_port

#: A gateway that serves Anthropic Messages at /v1/messages and nothing else.
MESSAGES_ONLY = """\
name = "messages-only"
{endpoints}
[endpoint.chat]
supported = false
reason = "serves /v1/messages only"
[endpoint.messages]
dialects = ["anthropic"]
"""


def _profile(tmp_path: Path, endpoints: str = "") -> Path:
    path = tmp_path / "messages-only.toml"
    path.write_text(MESSAGES_ONLY.format(endpoints=endpoints))
    return path


def test_a_run_where_nothing_applies_fails_and_says_why(tmp_path: Path) -> None:
    """A messages-only profile run on chat (no --endpoint): every scenario is not
    applicable; that is not a pass, whatever the gateway is (here: nothing listens)."""
    dead = f"http://127.0.0.1:{free_port()}"
    r = run_cli(
        "gate", "--gateway", dead, "--gateway-profile", str(_profile(tmp_path)),
        "--only", "*/text", "--out", "out", "--format", "json", "-o", "report.json",
        cwd=tmp_path,
    )  # fmt: skip
    assert r.code == 1, r.both
    assert "nothing was tested: none of the 4 scenarios applies to the gateway on chat" in r.err
    assert "serves /v1/messages only" in r.err
    assert "(the profile serves messages: run with --endpoint messages)" in r.err
    assert "Traceback" not in r.both
    doc = json.loads((tmp_path / "report.json").read_text())
    assert doc["passed"] is False and doc["untested"].startswith("none of the 4 scenarios")


def test_a_profile_names_the_endpoints_it_is_graded_on(tmp_path: Path) -> None:
    prof = _profile(tmp_path, 'endpoints = ["messages"]')
    [suite] = prepare_suites(GateOptions(gateway="http://127.0.0.1:9", profile=str(prof)))
    assert suite.endpoint == "messages"
    assert all(sc.name.startswith("messages/") for sc in suite.scenarios)
    # --endpoint still decides when it is given
    both = GateOptions(gateway="", profile=str(prof), endpoints=["chat", "responses"])
    assert [s.endpoint for s in prepare_suites(both)] == ["chat", "responses"]


def test_a_bad_endpoints_list_is_refused_with_where(tmp_path: Path) -> None:
    r = run_cli(
        "gate", "--gateway", "http://127.0.0.1:9",
        "--gateway-profile", str(_profile(tmp_path, 'endpoints = ["message"]')),
        cwd=tmp_path,
    )  # fmt: skip
    assert r.code == 2 and "endpoints" in r.err and "chat, messages, responses" in r.err, r.both


def _run(*verdicts: str) -> list[SuiteResult]:
    scs = [_scenario(f"s{i}", v) for i, v in enumerate(verdicts)]
    return [SuiteResult("s", "http://127.0.0.1:1", "http://127.0.0.1:2", scs)]


def test_totals_say_how_many_passed_clean() -> None:
    assert report.totals(_run("known", "known")) == (
        "2/2 scenarios passed (none clean, 2 only with known deviations)"
    )
    assert report.totals(_run("pass", "known")) == (
        "2/2 scenarios passed (1 clean, 1 only with known deviations)"
    )
    assert report.totals(_run("pass", "pass")) == "2/2 scenarios passed"
    # failures are counted beside known deviations, not left for the reader to subtract
    assert report.totals(_run("pass", "known", "fail")) == (
        "2/3 scenarios passed (1 clean, 1 only with known deviations, 1 failed)"
    )


def test_a_run_that_reached_no_upstream_says_so() -> None:
    results = _run("unreached", "unreached")
    why = report.untested(results)
    assert why is not None and why.startswith("the upstream got no request of any of the 2")
    assert report.totals(results).endswith("; nothing was tested")
    assert report.untested(_run("unreached", "pass")) is None


@contextmanager
def _failing_gateway(status: int, body: bytes) -> Iterator[str]:
    """A gateway on 127.0.0.1 that answers every request ``status`` with a JSON ``body``, as
    LiteLLM does when started without the master key its clients send (or with another)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


KEY_ERROR = b'{"error": {"message": "Authentication Error, No api key passed in.", "code": "401"}}'
CRASH = b'{"error": {"message": "Internal Server Error: master key not set", "code": "500"}}'


@pytest.mark.parametrize(
    ("status", "body", "profile", "where"),
    [
        (401, KEY_ERROR, None, "is gate's key the gateway's? give it with --key"),
        (403, KEY_ERROR.replace(b"401", b"403"), "litellm", "is gate's key the gateway's?"),
        (500, CRASH, "litellm", "it fails before routing anything: does it want a key"),
    ],
    ids=["401", "403-litellm", "500-litellm"],
)
def test_a_gateway_that_fails_every_request_is_not_called_unrouted(
    tmp_path: Path, status: int, body: bytes, profile: str | None, where: str
) -> None:
    """Every request answered with an HTTP error of the gateway's own: the hints quote the
    status and the answer's first bytes, and point at how it was started, not at routing or
    at another endpoint (LiteLLM's profile serves chat, the endpoint graded)."""
    prof = ["--gateway-profile", profile] if profile else []
    with _failing_gateway(status, body) as url:
        r = run_cli(
            "gate", "--gateway", url, *prof, "--only", "*/text", "--out", "out", cwd=tmp_path
        )
    assert r.code == 1, r.both
    n = r.err.count("  UNREACHED ")
    assert n >= 2, r.out
    said = (
        f"sseconform gate: nothing was tested: the gateway answered all {n} requests with HTTP "
        f"{status} ({body.decode()[:100]!r}) without calling the upstream: {where}"
    )
    assert said in r.err, r.err
    assert "routed" not in r.both and "--endpoint" not in r.err
    assert f"the gateway answered HTTP {status}: {body.decode()}" in r.out
    assert f"      | {body.decode()}" in r.out  # the answer's bytes, under its finding


def test_the_endpoint_graded_is_never_the_one_suggested(tmp_path: Path) -> None:
    """A profile serving chat and messages, graded on chat by a gateway that serves no such
    path (404): the hint names messages, never chat itself."""
    prof = tmp_path / "two.toml"
    prof.write_text('name = "two"\n[endpoint.messages]\ndialects = ["anthropic"]\n')
    with _failing_gateway(404, b'{"error": "no such route"}') as url:
        r = run_cli(
            "gate", "--gateway", url, "--gateway-profile", str(prof), "--only", "*/text",
            "--out", "out", cwd=tmp_path,
        )  # fmt: skip
    assert r.code == 1, r.both
    assert "is the gateway routed to the replay upstream" in r.err
    assert "(the profile serves messages: run with --endpoint messages)" in r.err, r.err


SNAPSHOTS = Path(__file__).parent / "snapshots"


def test_the_scorecard_s_columns_hold_long_names() -> None:
    """The text report's scorecard keeps its columns in line whatever the scenario names and
    expectations (Gemini's non-streaming route names its scenarios
    ``gemini:generateContent/anthropic/text``)."""
    names = [("chat/openai/text", "pass", "content"),
             ("gemini:generateContent/anthropic/text", "fail", "content"),
             ("gemini:generateContent/responses/error-mid-stream", "known", "failure-as-answer"),
             ("messages/gemini/rate-limited", "unreached", "rejected")]  # fmt: skip
    scs = []
    for name, verdict, expect in names:
        s = _scenario(name, verdict)
        s.expect = expect
        scs.append(s)
    scs[0].fixed = ["diff:lost:reasoning"]
    scs[1].findings.append(Finding("changed", "m", source="diff", field="usage.prompt_tokens"))
    card = report.scorecard(SuiteResult("s", "http://127.0.0.1:1", "http://127.0.0.1:2", scs))
    snapshot.compare(SNAPSHOTS / "scorecard-long-names.txt", card + "\n")
    rows = card.splitlines()[: len(names)]
    for (name, _, expect), row in zip(names, rows, strict=True):
        assert row.index(f" {name} ") == rows[0].index(f" {names[0][0]} "), row
        assert row.index(f" {expect}") == rows[0].index(" content"), row
    found = [r.index("[") if "known [" not in r else r.index("known [") for r in rows[1:]]
    assert len(set(found)) == 1, rows  # the findings start in one column too


def test_an_endpoint_s_dialects_list_wins_over_supported_false(tmp_path: Path) -> None:
    """As the profile docs say: a dialect an endpoint names in ``dialects`` is served
    there, chat included, whatever its ``[dialect.*]`` table says."""
    prof = tmp_path / "p.toml"
    prof.write_text(
        '[dialect.gemini]\nsupported = false\n[endpoint.chat]\ndialects = ["gemini"]\n'
        '[endpoint.messages]\ndialects = ["gemini"]\n'
    )
    options = GateOptions(gateway="", profile=str(prof), endpoints=["chat", "messages"])
    for suite in prepare_suites(options):
        assert suite.supports("gemini"), suite.endpoint
        assert suite.endpoint_refusal("anthropic") is not None


def test_a_report_can_go_to_dev_null(tmp_path: Path) -> None:
    """``-o /dev/null`` holds nothing of the user's: it is not refused as an existing file
    (a regular file still is, without --force)."""
    rec = str(ROOT / "recordings" / "chat" / "parallel-tool-calls.jsonl")
    assert run_cli("check", rec, "-o", "/dev/null", cwd=tmp_path).code == 0
    assert run_cli("translate", rec, "--to", "anthropic", "-o", "/dev/null", cwd=tmp_path).code == 0
    dead = f"http://127.0.0.1:{free_port()}"
    r = run_cli(
        "gate", "--gateway", dead, "--gateway-profile", str(_profile(tmp_path)),
        "--only", "*/text", "--out", "out", "-o", "/dev/null", cwd=tmp_path,
    )  # fmt: skip
    assert r.code == 1 and "exists" not in r.err and "nothing was tested" in r.err, r.both
    kept = tmp_path / "kept.txt"
    kept.write_text("mine")
    refused = run_cli("check", rec, "-o", str(kept), cwd=tmp_path)
    assert refused.code == 2 and "exists" in refused.err and kept.read_text() == "mine"


def _chat(text: str, finish: str = "stop") -> bytes:
    def chunk(delta: dict[str, object], reason: str | None = None) -> bytes:
        obj = {"choices": [{"index": 0, "delta": delta, "finish_reason": reason}]}
        return b"data: " + json.dumps(obj).encode() + b"\n\n"

    return chunk({"content": text}) + chunk({}, finish) + b"data: [DONE]\n\n"


def test_an_excerpt_is_escaped_once() -> None:
    """A lost newline shows as ``\\n`` in the message, not ``\\\\x0a`` (escaped, then
    quoted and escaped again); a control character is still never shown raw."""
    from sseconform.gate.content import content_of
    from sseconform.gate.diff import compare

    up = content_of([_chat("Hi\n\n\x1b there")], "openai")
    gw = content_of([_chat("Hi")], "openai")
    [d] = [d for d in compare(up, gw) if d.field == "text"]
    assert "'\\n\\n\\x1b there'" in d.message, d.message
    assert "\\\\" not in d.message and "\x1b" not in d.message


def _messages(stop: str) -> bytes:
    events = [
        ("message_start", {"type": "message_start", "message": {
            "id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [],
            "stop_reason": None, "usage": {"input_tokens": 1, "output_tokens": 0}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": "Hi"}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop},
                           "usage": {"output_tokens": 1}}),
        ("message_stop", {"type": "message_stop"}),
    ]  # fmt: skip
    return b"".join(f"event: {n}\ndata: {json.dumps(o)}\n\n".encode() for n, o in events)


def test_a_stop_reason_is_quoted_as_the_gateway_sent_it() -> None:
    """A gateway's ``stop_reason: "error"`` is named as such, not as the reference
    encoder's re-encoding of its folded value (``end_turn``), and differs from the
    upstream's ``end_turn`` though both fold to ``stop``."""
    from sseconform.gate.content import content_of
    from sseconform.gate.diff import compare

    up = content_of([_messages("end_turn")], "anthropic")
    gw = content_of([_messages("error")], "anthropic")
    [d] = compare(up, gw, grammar="anthropic")
    assert d.field == "stop_reason" and d.kind == "changed"
    assert d.message == "stop_reason 'error', the upstream's maps to 'end_turn'"
    assert compare(up, content_of([_messages("end_turn")], "anthropic"), grammar="anthropic") == []


def _responses(status: str, reason: str | None) -> bytes:
    """A Responses stream of one text, ending ``status`` with ``incomplete_details.reason``."""
    details = {"reason": reason} if reason else None
    item = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": "Hi", "annotations": []}],
    }
    done = {
        "id": "resp_1",
        "object": "response",
        "status": status,
        "model": "m",
        "output": [item],
        "incomplete_details": details,
    }
    events: list[tuple[str, dict[str, Any]]] = [
        ("response.created", {"response": {**done, "status": "in_progress", "output": []}}),
        ("response.output_item.added", {"output_index": 0, "item": {**item, "content": []}}),
        ("response.output_text.delta", {"output_index": 0, "content_index": 0,
                                        "item_id": "msg_1", "delta": "Hi"}),
        ("response.output_item.done", {"output_index": 0, "item": item}),
        (f"response.{status}", {"response": done}),
    ]  # fmt: skip
    return b"".join(
        f"event: {n}\ndata: {json.dumps({'type': n, 'sequence_number': i, **o})}\n\n".encode()
        for i, (n, o) in enumerate(events)
    )


def _gemini(finish: str) -> bytes:
    chunk = {"candidates": [{"content": {"parts": [{"text": "Hi"}], "role": "model"},
                             "finishReason": finish, "index": 0}]}  # fmt: skip
    return f"data: {json.dumps(chunk)}\r\n\r\n".encode()


@pytest.mark.parametrize(
    ("dialect", "upstream", "gateway", "field", "said"),
    [
        ("responses", _responses("incomplete", "max_output_tokens"),
         _responses("incomplete", "error"), "status",
         "status 'incomplete (error)', the upstream's maps to 'incomplete (max_output_tokens)'"),
        ("gemini", _gemini("MAX_TOKENS"), _gemini("LENGTH"), "finishReason",
         "finishReason 'LENGTH', the upstream's maps to 'MAX_TOKENS'"),
    ],
)  # fmt: skip
def test_a_finish_no_grammar_has_is_quoted_as_the_gateway_sent_it(
    dialect: str, upstream: bytes, gateway: bytes, field: str, said: str
) -> None:
    """As for Anthropic's ``stop_reason``: a Responses ``incomplete_details.reason`` or a
    Gemini ``finishReason`` the provider never sends is named as sent, and differs from the
    upstream's even where both fold to one chat finish."""
    from sseconform.gate.content import content_of
    from sseconform.gate.diff import compare

    up = content_of([upstream], dialect)
    diffs = compare(up, content_of([gateway], dialect), grammar=dialect)
    [d] = [x for x in diffs if x.field == field]
    assert d.kind == "changed" and d.message == said, diffs
    assert [x for x in compare(up, content_of([upstream], dialect), grammar=dialect)] == []


def test_reasoning_relabelled_as_text_is_one_finding() -> None:
    """Every character arrived, in the wrong field: one finding naming both sides, not a
    lost reasoning and an unrelated extra text."""
    from sseconform.gate.content import content_of
    from sseconform.gate.diff import compare
    from sseconform.gate.rules import diff as diff_rules
    from sseconform.rules.catalog import doc

    def stream(*deltas: dict[str, str]) -> bytes:
        chunks: list[dict[str, object]] = [
            {"choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas
        ]
        chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks)

    up = content_of([stream({"reasoning_content": "Let me think. "}, {"content": "Hi"})])
    gw = content_of([stream({"content": "Let me think. "}, {"content": "Hi"})])
    [d] = compare(up, gw)
    assert (d.field, d.kind) == ("reasoning", "relabelled")
    assert "14 chars of reasoning reached the client as text ('Let me think. ')" in d.message
    said = doc(diff_rules.RELABELLED.code)
    assert "cross-talk" not in said.what + said.why
    assert "cross-talk" not in doc(diff_rules.EXTRA.code).what.split(":")[0]


def test_delays_pair_pieces_by_content_never_negative() -> None:
    """A gateway that sends the reasoning as text in front of the answer: each upstream
    piece is timed against its own characters in the gateway's text (shifted past the
    moved reasoning), not against whatever sits at the same position, so no delay is
    negative (it was -0.4 s here, timed against the early reasoning)."""
    from sseconform.gate.content import content_of
    from sseconform.gate.timing import Clock, Timing, _delays, _Side

    def chunks(*deltas: dict[str, str]) -> list[bytes]:
        return [
            b"data: "
            + json.dumps({"choices": [{"index": 0, "delta": d, "finish_reason": None}]}).encode()
            + b"\n\n"
            for d in deltas
        ]

    up = chunks({"reasoning_content": "Let me think. "}, {"content": "Hi"}, {"content": " there"})
    gw = chunks({"content": "Let me think. "}, {"content": "Hi"}, {"content": " there"})

    def side(parts: list[bytes], times: list[float]) -> _Side:
        offsets = [sum(len(p) for p in parts[:i]) for i in range(len(parts))]
        body = b"".join(parts)
        return _Side(content_of([body]), Clock(list(zip(times, offsets, strict=True))), len(body))

    tm = Timing()
    _delays(tm, side(up, [0.0, 0.4, 0.5]), side(gw, [0.05, 0.42, 0.53]))
    assert tm.pieces == 2  # the text's two pieces; the reasoning has no field to pair with
    assert tm.added_delay_p50_s is not None and tm.added_delay_max_s is not None
    assert 0.0 <= tm.added_delay_p50_s <= tm.added_delay_max_s <= 0.031, tm


def test_an_unreached_200_quotes_what_the_gateway_streamed(tmp_path: Path) -> None:
    """A gateway that answered 200 and streamed an error of its own without calling the
    upstream (it could not translate the request) is told so, with the frame's message,
    not sent to check its routing; its card does not say "same meaning on both sides"."""
    from sseconform.gate.evidence import Evidence
    from sseconform.gate.grading import grade_recording
    from sseconform.gate.references import references
    from sseconform.gate.suite import builtin_suite
    from sseconform.html.gate import render
    from sseconform.recording.format import Response, write_recording
    from sseconform.replay.plan import load
    from tests.html.dom import parse

    [sc] = [s for s in builtin_suite("anthropic").scenarios if s.name == "anthropic/text"]
    rec = load(str(sc.recording))
    frame = {"error": {"message": "cannot translate tool_choice", "type": "invalid_request"}}
    body = b"data: " + json.dumps(frame).encode() + b"\n\ndata: [DONE]\n\n"
    path = tmp_path / "gw.jsonl"
    head = Response(200, "OK", "HTTP/1.1", [("content-type", "text/event-stream")], 0.0)
    write_recording(path, [(0.01, body)], response=head)
    g = grade_recording(
        sc, references(sc, rec, "anthropic"), str(path), 200, [], complete=True, reason="",
        allow=[], endpoint="chat",
    )  # fmt: skip
    [f] = [f for f in g.findings if f.code == "not-reached"]
    assert "streamed an error of its own ('cannot translate tool_choice')" in f.message
    assert "could not translate or route the request itself" in f.message
    assert "is the gateway routed" not in f.message
    s = ScenarioResult(sc.name, "content", 200, str(path), 0, 0.1, g.findings,
                       evidence=Evidence(upstream=None, gateway=None))  # fmt: skip
    text = parse(render([SuiteResult("s", "http://127.0.0.1:1", "", [s])])).text
    assert "Same meaning on both sides" not in text and "Not compared" in text


def test_a_retry_is_judged_against_its_retry_after() -> None:
    from sseconform.gate.timing import DEFAULT_BUDGETS, Timing
    from sseconform.gate.timing_rules import judge

    def codes(waited: float, asked: float | None) -> list[tuple[str, str]]:
        tm = Timing(retry_wait_s=waited, retry_after_s=asked)
        return [(v.code, v.severity) for v in judge(tm, DEFAULT_BUDGETS)]

    assert codes(1.02, 1.0) == []  # what was asked: a clean retry
    assert codes(1.4, 1.0) == []  # within the first-token budget of it
    assert codes(4.2, 1.0) == [("retry-wait", "error")]
    assert codes(0.1, 1.0) == [("retry-wait", "warning")]  # refused again by a provider
    assert codes(4.2, None) == []  # no Retry-After: nothing to judge against


def test_a_whole_upstream_answer_is_timed_against_the_stream_it_replaces() -> None:
    """A gateway that called its upstream without streaming and streamed the finished
    answer at once: for its client that is a buffering gateway. What the client got is
    judged against the stream the recording would have sent, so text spread over 0.6 s,
    delivered in one burst at its end, fails on its first token (it only warned)."""
    from sseconform.gate.content import content_of
    from sseconform.gate.timing import DEFAULT_BUDGETS, measure
    from sseconform.gate.timing_rules import judge
    from sseconform.replay.plan import load
    from sseconform.replay.routing import RequestBody
    from sseconform.replay.served import Served
    from sseconform.replay.whole import whole_plan
    from sseconform.translate import translate_body

    rec = load(str(ROOT / "recordings" / "anthropic" / "text-anthropic.jsonl"))
    served = Served("127.0.0.1:1", "POST", "/v1/messages", rec.name, 200, "", framing="json")
    served.started = 100.0
    served.measured(whole_plan(rec, speed=0.2), RequestBody(b"{}"), [], rec, 0.2)
    assert served.streamed is not None and served.plan is not None
    end = served.streamed.spans[-1][0]
    served.times = [(end, 0)]  # the one answer, when the recorded stream would have ended
    gw = b"".join(translate_body([rec.body], "anthropic", to="chat"))
    tm = measure(served, 100.0, "anthropic", content_of([gw]), [(end + 0.01, 0)], len(gw))
    assert tm is not None and tm.upstream_whole_s is not None
    found = {v.code: v.severity for v in judge(tm, DEFAULT_BUDGETS)}
    assert found["upstream-not-streamed"] == "warning"
    assert found["first-token"] == "error", found  # the first piece waited for the last
    assert tm.added_first_token_s is not None and tm.added_first_token_s > 0.5, tm


def test_first_token_is_timed_on_the_content_the_client_got() -> None:
    """A gateway that dropped the reasoning: its client's first content is the text, timed
    against when the upstream sent the text (not its reasoning, 0.4 s earlier); a gateway
    that opened its stream before calling the upstream added nothing to the first event."""
    from sseconform.gate.content import content_of
    from sseconform.gate.timing import Clock, Timing, _first, _Side

    def side(deltas: list[dict[str, str]], times: list[float]) -> _Side:
        parts = [
            b"data: "
            + json.dumps({"choices": [{"index": 0, "delta": d, "finish_reason": None}]}).encode()
            + b"\n\n"
            for d in deltas
        ]
        offsets = [sum(len(p) for p in parts[:i]) for i in range(len(parts))]
        body = b"".join(parts)
        return _Side(content_of([body]), Clock(list(zip(times, offsets, strict=True))), len(body))

    up = side([{"role": "assistant"}, {"reasoning_content": "Hm. "}, {"content": "Hi"}],
              [0.3, 0.4, 0.8])  # fmt: skip
    gw = side([{"role": "assistant"}, {"content": "Hi"}], [0.01, 0.82])
    tm = Timing()
    _first(tm, up, gw, 0.0)
    assert tm.added_first_token_s is not None and abs(tm.added_first_token_s - 0.02) < 1e-6
    assert tm.added_first_event_s == 0.0 and tm.pairs == []  # its own event, not carried


def test_a_gateway_that_refused_the_request_itself_is_not_sent_to_its_routing(
    tmp_path: Path,
) -> None:
    """A 400 of the gateway's own (a parameter it cannot pass on) with nothing sent
    upstream: the hint says the gateway refused it, not that routing is wrong; a 404 still
    points at routing."""
    from sseconform.gate.grading import grade_recording
    from sseconform.gate.references import references
    from sseconform.gate.suite import builtin_suite
    from sseconform.recording.format import Response, write_recording
    from sseconform.replay.plan import load

    [sc] = [s for s in builtin_suite("anthropic").scenarios if s.name == "anthropic/text"]
    ref = references(sc, load(str(sc.recording)), "anthropic")

    def hint(status: int) -> str:
        path = tmp_path / f"{status}.jsonl"
        path.unlink(missing_ok=True)
        head = Response(status, "x", "HTTP/1.1", [("content-type", "application/json")], 0.0)
        body = b'{"error": {"message": "UnsupportedParamsError: thinking"}}'
        write_recording(path, [(0.01, body)], response=head)
        g = grade_recording(sc, ref, str(path), status, [], complete=True, reason="",
                            allow=[], endpoint="messages")  # fmt: skip
        [f] = [f for f in g.findings if f.code == "not-reached"]
        return f.message

    assert "the gateway refused the request itself" in hint(400)
    assert "UnsupportedParamsError" in hint(400)
    assert "is the gateway routed" in hint(404)
