"""``gate --endpoint gemini --non-streaming``: each scenario asks Gemini's
``:generateContent`` of the test gateway (which folds its own stream into one answer, as a
gateway that always streams upstream does), and the answer is graded as one object: its
content against what the upstream streamed, an upstream failure as an HTTP error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sseconform.demo.gateway import Gateway
from sseconform.errors import UsageError
from sseconform.gate.aimed import for_endpoint, non_streaming
from sseconform.gate.expectations import _mirrored
from sseconform.gate.graded import Graded, checked
from sseconform.gate.options import GateOptions, prepare_suites
from sseconform.gate.suite import builtin_suite, recordings_dir
from sseconform.providers import asks_whole, non_streaming_path
from sseconform.recording.format import Response, write_recording
from sseconform.replay.plan import load
from sseconform.wires import fold
from tests.cli.helpers import run_cli
from tests.gate.test_endpoints import _gate_native
from tests.gate.test_gate import free_port

DIALECTS = ("anthropic", "gemini", "openai", "responses")
PREFIX = "gemini:generateContent"


def _gate(
    tmp_path: Path, dialect: str, bugs: set[str], only: set[str] | None = None
) -> dict[str, Any]:
    return _gate_native(tmp_path, "gemini", dialect, bugs, only, aim=non_streaming)


def _said(s: Any) -> list[tuple[str, str, str]]:
    return [(f.code, f.severity, f.message) for f in s.findings]


@pytest.mark.parametrize("dialect", DIALECTS)
def test_a_correct_gateway_passes_every_scenario(tmp_path: Path, dialect: str) -> None:
    """Every built-in scenario of every upstream dialect: the whole answer where the upstream
    finished, an HTTP error where it failed (a drop, an error mid-stream, a refusal)."""
    got = _gate(tmp_path, dialect, set())
    assert len(got) >= 8
    failures = 0
    for name, s in got.items():
        assert name.startswith(f"{PREFIX}/{dialect}/"), name
        if name.endswith(("/previous-response", "/slow-call")):  # a call is whole in Gemini's
            assert s.verdict == "not-applicable"
            continue
        assert s.verdict == "pass", (name, s.note, _said(s))
        assert s.timing is None  # a non-streaming answer has no timing to grade
        if s.expect in ("error", "rejected"):  # a stall ends, and its answer is whole
            failures += 1
            assert s.status >= 400 or "retried" in s.note, (name, s.status, s.note)
    assert failures >= 2
    dropped = got[f"{PREFIX}/{dialect}/dropped-mid-stream"]
    assert dropped.status >= 500 and dropped.note.startswith("rejected with HTTP 5")


def test_the_requests_ask_generate_content(tmp_path: Path) -> None:
    got = _gate(tmp_path, "anthropic", set(), only={"text"})
    s = got[f"{PREFIX}/anthropic/text"]
    recorded = Path(s.recording).read_text()
    assert ":generateContent" in recorded and "streamGenerateContent" not in recorded


def test_a_stream_for_a_non_streaming_call_fails_under_v022(tmp_path: Path) -> None:
    got = _gate(tmp_path, "openai", {"stream-for-whole"}, only={"text", "tool-call"})
    for name, s in got.items():
        codes = {f.code for f in s.findings if f.severity == "error"}
        assert s.verdict == "fail" and "V022" in codes, (name, _said(s))


def test_a_failure_answered_with_200_fails_the_scenario(tmp_path: Path) -> None:
    got = _gate(tmp_path, "anthropic", {"failure-as-answer"}, only={"dropped-mid-stream", "text"})
    s = got[f"{PREFIX}/anthropic/dropped-mid-stream"]
    errors = [f for f in s.findings if f.severity == "error"]
    assert s.verdict == "fail" and s.status == 200, _said(s)
    assert [f.code for f in errors] == ["failure-as-answer"], _said(s)
    assert "takes the body for the whole answer" in errors[0].message
    assert got[f"{PREFIX}/anthropic/text"].verdict == "pass"


def test_a_conversation_s_next_turn_goes_on_from_the_whole_answer(tmp_path: Path) -> None:
    """The tool call read out of the one object, its result sent back: turn 2 is graded."""
    got = _gate(tmp_path, "gemini", set())
    turned = [s for s in got.values() if s.turns]
    assert turned, "no conversation scenario ran"
    for s in turned:
        assert s.verdict == "pass", _said(s)
        assert all(Path(t).is_file() for t in s.turns)


def test_the_path_and_the_names() -> None:
    assert non_streaming_path("/v1beta/models/{model}:streamGenerateContent?alt=sse") == (
        "/v1beta/models/{model}:generateContent"
    )
    assert non_streaming_path("/gemini/v1beta/models/m:streamGenerateContent?alt=sse&k=1") == (
        "/gemini/v1beta/models/m:generateContent?k=1"
    )
    assert non_streaming_path("/v1/chat/completions") is None
    suite = non_streaming(for_endpoint(builtin_suite("openai"), "gemini"))
    assert suite.name == "builtin:openai (gemini, non-streaming)"
    assert suite.scenarios[0].name.startswith(f"{PREFIX}/openai/")
    assert suite.path_for("openai").endswith(":generateContent")


def test_only_the_gemini_endpoint_is_asked_without_streaming() -> None:
    options = GateOptions(gateway="http://127.0.0.1:9", non_streaming=True, endpoints=["chat"])
    with pytest.raises(UsageError, match="--non-streaming: only the gemini endpoint"):
        prepare_suites(options)
    options.endpoints = ["gemini"]
    assert all(not s.streaming for s in prepare_suites(options))


def test_cli(tmp_path: Path) -> None:
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}").running() as gw:
        r = run_cli(
            "gate", "--gateway", gw.url, "--suite", "builtin:openai", "--endpoint", "gemini",
            "--non-streaming", "--only", "*/text", "--upstream-port", str(port),
            "--speed", "0", "--out", tmp_path / "out", cwd=tmp_path,
        )  # fmt: skip
    assert r.code == 0, r.out + r.err
    assert "non-streaming" in r.out and f"{PREFIX}/openai/text" in r.out
    bad = run_cli(
        "gate", "--gateway", "http://127.0.0.1:9", "--non-streaming", "--endpoint", "chat",
        cwd=tmp_path,
    )  # fmt: skip
    assert bad.code == 2 and "--endpoint gemini" in bad.err


def test_diff_reads_a_non_streaming_recording_whole(tmp_path: Path) -> None:
    """A gateway's ``:generateContent`` answer (its recording's URL says so) against the
    upstream's stream: the same content; ``--timing`` has nothing to compare."""
    gemini = recordings_dir() / "gemini" / "text-gemini.jsonl"
    whole = fold("gemini", load(str(gemini)).body)
    assert whole.status == 200
    rec = tmp_path / "answer.jsonl"
    url = "http://127.0.0.1:9/v1beta/models/sseconform-gemini:generateContent"
    head = Response(200, "OK", headers=[("content-type", "application/json")], t=0.01)
    write_recording(rec, [(0.02, whole.body)], response=head, request={"url": url})
    same = run_cli("diff", "--gateway-from", "gemini", gemini, rec, cwd=tmp_path)
    assert same.code == 0 and "same content" in same.out, same.out + same.err
    timed = run_cli("diff", "--timing", "--gateway-from", "gemini", gemini, rec, cwd=tmp_path)
    assert timed.code == 2 and "no timing" in timed.err, timed.err


def test_a_cut_answer_where_the_upstream_dropped_is_a_warning(tmp_path: Path) -> None:
    """200, then the connection reset inside the object, where the upstream dropped: the
    client raises on the cut body (the failure is not hidden), so the cut (V022, V006) and
    the abort are warnings, as on a stream."""
    body = b'{"candidates":[{"content":{"parts":[{"text":"Hello wor'
    rec = tmp_path / "cut.jsonl"
    url = "http://127.0.0.1:9/v1beta/models/m:generateContent"
    head = Response(200, "OK", headers=[("content-type", "application/json")], t=0.01)
    write_recording(rec, [(0.02, body)], response=head, request={"url": url})
    g = Graded(str(rec), 200, [], "gemini", whole=True)
    checked(g)
    _mirrored(g, "connection reset")
    said = {f.code: f.severity for f in g.findings}
    assert said == {"V022": "warning", "V006": "warning", "aborted": "warning"}, g.findings


def test_no_answer_where_the_upstream_dropped_is_a_mirrored_drop(tmp_path: Path) -> None:
    """A pass-through whose upstream dropped closes its client's connection with no status
    (``abort-on-drop``, as claude-code-router does): the drop mirrored, a warning as on a
    stream, not ``transport:no-response`` ("usually the gateway is down") for a gateway that
    is up and answered as its upstream did."""
    got = _gate(tmp_path, "gemini", {"abort-on-drop"}, {"dropped-mid-stream"})
    [s] = got.values()
    assert s.status is None and s.verdict == "pass", _said(s)
    assert [(f.key, f.severity) for f in s.findings] == [("transport:aborted", "warning")]
    assert "closed its client's connection with no answer" in s.findings[0].message
    assert s.note == "no answer, as the upstream dropped"


def test_a_prefixed_route_asks_whole_too() -> None:
    assert asks_whole("http://h:1/gemini/v1beta/models/m:generateContent")
    assert asks_whole("/v1/models/m:generateContent?key=x")
    assert not asks_whole("http://h:1/gemini/v1beta/models/m:streamGenerateContent?alt=sse")
    assert not asks_whole("http://h:1/v1/chat/completions")
