"""``replay`` of a recorded WebSocket session: the server's bytes served again byte for byte,
turn by turn, to a new client (record's own client, openai-python's ``responses.connect()``
and a raw wsproto client that sees every frame); a refused upgrade as recorded; a session
answers upgrades only. Every server binds 127.0.0.1."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest
from wsproto.events import CloseConnection, TextMessage

from sseconform import check_bytes, check_file
from sseconform.record.websocket import record_websocket
from sseconform.recording.format import RecordingReader, RecordingWriter, Response, Sent
from sseconform.replay.plan import load
from sseconform.replay.scenario import ReplayRule
from sseconform.replay.server import ReplayServer
from tests.conftest import CASES
from tests.replay.conftest import HOST, RECORDINGS_DIR
from tests.replay.test_websocket import Raw
from tests.websocket.cases import build, frame

pytestmark = pytest.mark.filterwarnings(
    "ignore:connect\\(\\) must be used as a context manager:DeprecationWarning"
)

TEXT = RECORDINGS_DIR / "responses" / "text-responses.jsonl"
TURNS: list[dict[str, Any]] = [
    {"model": "gpt-5-mini", "input": "hi"},
    {"model": "gpt-5-mini", "input": [{"role": "user", "content": "again"}]},
]


def server_side(path: Path) -> tuple[bytes, list[Sent]]:
    """A session's server bytes (joined) and the client's messages."""
    data, sent = b"", []
    with open(path, "rb") as fp:
        for _t, item in RecordingReader(fp, str(path), websocket=True).session():
            if isinstance(item, bytes):
                data += item
            else:
                sent.append(item)
    return data, sent


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two chained turns recorded from replay's live WebSocket mode (an SSE recording)."""
    out = tmp_path_factory.mktemp("session") / "session.jsonl"
    with ReplayServer([load(str(TEXT))], speed=0).running() as srv:
        got = record_websocket(f"{srv.url}/v1/responses", TURNS, str(out), chain=True)
    assert got.ok, got.reason
    return out


@pytest.fixture
def served(session: Path) -> Iterator[ReplayServer]:
    with ReplayServer([load(str(session))], speed=0).running() as srv:
        yield srv


def test_a_session_replays_byte_for_byte_and_checks_clean(
    session: Path, served: ReplayServer, tmp_path: Path
) -> None:
    again = tmp_path / "again.jsonl"
    got = record_websocket(f"{served.url}/v1/responses", TURNS, str(again), chain=True)
    assert got.ok and got.turns == 2 and got.answered == 2, got.reason
    first, _ = server_side(session)
    second, sent_again = server_side(again)
    assert second == first and len(first) > 1000
    assert [json.loads(s.text)["input"] for s in sent_again] == [t["input"] for t in TURNS]
    for path in (session, again):
        result = check_file(path, grammar="responses")
        assert result.kind == "session" and result.codes == set(), result.findings


def test_openai_python_reads_both_turns(session: Path, served: ReplayServer) -> None:
    client = openai.OpenAI(api_key="sk-test", base_url=f"{served.url}/v1", max_retries=0)
    kinds: list[list[str]] = []
    with client.responses.connect() as conn:
        for body in TURNS:
            conn.response.create(**body)
            kinds.append([])
            for event in conn:
                kinds[-1].append(event.type)
                if event.type == "response.completed":
                    break
    assert [k[0] for k in kinds] == ["response.created"] * 2
    assert all(k[-1] == "response.completed" for k in kinds)
    assert "response.output_text.delta" in kinds[1]


def test_each_turn_waits_for_the_clients_message_and_the_close_for_the_clients(
    served: ReplayServer,
) -> None:
    """The recorded client closed first: the server's Close comes only after the new
    client's, and the second turn's events only after its second message."""
    raw = Raw(served.port)
    assert raw.status == 101
    raw.create(input="hi")
    first = raw.messages()
    assert json.loads(first[-1])["type"] == "response.completed"
    raw.sock.settimeout(0.3)
    with pytest.raises(socket.timeout):  # nothing until the second message
        raw.sock.recv(1)
    raw.sock.settimeout(10)
    raw.create(input=[{"role": "user", "content": "again"}])
    assert raw.messages() == first  # the recording's second turn is its first again
    raw.sock.settimeout(0.3)
    with pytest.raises(socket.timeout):  # the server's Close waits for ours
        raw.sock.recv(1)
    raw.sock.settimeout(10)
    raw.send(CloseConnection(1000))
    event = raw.next()
    assert isinstance(event, CloseConnection) and event.code == 1000
    raw.close()


def test_a_server_close_mid_response_is_played_as_recorded(tmp_path: Path) -> None:
    path = build(CASES / "responses/fail/S082-close-1011-mid-response/session.txt",
                 tmp_path / "s.jsonl")  # fmt: skip
    with ReplayServer([load(str(path))], speed=0).running() as srv:
        raw = Raw(srv.port)
        raw.create(input="hi")
        events = []
        while not isinstance(event := raw.next(), CloseConnection):
            assert isinstance(event, TextMessage)
            events.append(json.loads(event.data)["type"])
        assert event.code == 1011 and event.reason == "upstream failed"
        assert events[-1] == "response.output_text.delta"
        raw.close()


def test_a_refused_upgrade_is_served_as_recorded(tmp_path: Path) -> None:
    path = tmp_path / "refused.jsonl"
    w = RecordingWriter(path, request={"method": "GET", "url": "http://x/v1/responses"},
                        transport="websocket")  # fmt: skip
    head = [("allow", "POST"), ("content-type", "application/json")]
    w.response(Response(405, "Method Not Allowed", "HTTP/1.1", head), t=0.01)
    w.read(0.01, b'{"error": {"message": "use POST"}}')
    w.close(t=0.01)
    with ReplayServer([load(str(path))], speed=0).running() as srv:
        raw = Raw(srv.port)
        assert raw.status == 405
        assert b"allow: POST" in raw.head and b"content-length: 34" in raw.head
        raw.close()


@pytest.fixture(scope="module")
def two_answers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two chained turns recorded from replay's live WebSocket mode over two recordings of
    one model, so each turn has an answer (and a response id) of its own."""
    out = tmp_path_factory.mktemp("two") / "session.jsonl"
    other = RECORDINGS_DIR / "responses" / "agent-answer-responses.jsonl"
    with ReplayServer([load(str(TEXT)), load(str(other))], speed=0).running() as srv:
        got = record_websocket(f"{srv.url}/v1/responses", TURNS, str(out), chain=True)
    assert got.ok, got.reason
    return out


def _recorded_ids(path: Path) -> list[str]:
    """Each turn's response id, read from the recorded server's bytes."""
    data, _ = server_side(path)
    return [m.decode() for m in re.findall(rb'"response\.created".*?"id":\s*"([^"]+)"', data)]


def test_a_session_answers_http_clients_with_its_turns(two_answers: Path) -> None:
    """With no SSE recording loaded, a POST gets a turn of the session as an SSE stream (the
    reverse of the live mode): turn 1, then turn 2, or the turn after the one its
    ``previous_response_id`` names; each a stream openai-python reads whole and ``check``
    passes; ``"stream": false`` gets the turn's whole response."""
    ids = _recorded_ids(two_answers)
    assert len(ids) == 2 and ids[0] != ids[1]
    with ReplayServer([load(str(two_answers))], speed=0).running() as srv:
        _answers_http_clients(srv, ids)


def _answers_http_clients(served: ReplayServer, ids: list[str]) -> None:
    import httpx

    client = openai.OpenAI(api_key="sk-test", base_url=f"{served.url}/v1", max_retries=0)
    got = []
    for _ in range(3):
        with client.responses.stream(model="gpt-5-mini", input="hi") as stream:
            final = stream.get_final_response()
        got.append(final.id)
        assert final.output_text
    assert got == [ids[0], ids[1], ids[0]]
    chained = client.responses.create(
        model="gpt-5-mini", input="again", previous_response_id=ids[0], stream=True
    )
    kinds = [event.type for event in chained]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    answer = httpx.post(f"{served.url}/v1/responses", json={
        "model": "gpt-5-mini", "input": "again", "previous_response_id": ids[0], "stream": True,
    })  # fmt: skip
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/event-stream")
    assert ids[1].encode() in answer.content and ids[0].encode() not in answer.content
    result = check_bytes(answer.content, grammar="responses")
    assert result.codes == set(), result.findings
    whole = client.responses.create(model="gpt-5-mini", input="again", previous_response_id=ids[0])
    assert whole.id == ids[1] and whole.status == "completed" and whole.output_text


def test_a_rule_or_the_selection_header_naming_a_session_gets_its_turns(
    two_answers: Path,
) -> None:
    """Beside an SSE recording of the same API, a scenario rule (chosen under the router's
    lock) or the ``x-sseconform-recording`` header names the session: its turns in order."""
    import httpx

    ids = _recorded_ids(two_answers)
    rule = ReplayRule(recording=two_answers.name, path="/v1/responses")
    loaded = [load(str(two_answers)), load(str(TEXT))]
    with ReplayServer(loaded, speed=0, rules=[rule]).running() as srv:
        body = {"model": "gpt-5-mini", "input": "hi", "stream": True}
        got = [httpx.post(f"{srv.url}/v1/responses", json=body, timeout=10) for _ in range(2)]
        assert [ids[n].encode() in g.content for n, g in enumerate(got)] == [True, True]
    with ReplayServer(loaded, speed=0).running() as srv:
        select = {"x-sseconform-recording": two_answers.name}
        named = [
            httpx.post(f"{srv.url}/v1/responses", json=body, timeout=10, headers=select)
            for _ in range(2)
        ]
        assert [ids[n].encode() in g.content for n, g in enumerate(named)] == [True, True]
        plain = httpx.post(f"{srv.url}/v1/responses", json=body, timeout=10)  # the SSE one's
        assert ids[1].encode() not in plain.content and b"response.completed" in plain.content


def test_a_turn_served_over_http_takes_the_sse_faults(session: Path, served: ReplayServer) -> None:
    """The turn is a stream like any recording: ``drop-after-events=2`` cuts it (openai-python
    reports the error), ``error-at=2`` ends it with the provider's error event."""
    import httpx

    client = openai.OpenAI(
        api_key="sk-test", base_url=f"{served.url}/v1", max_retries=0,
        default_headers={"x-sseconform-fault": "drop-after-events=2"},
    )  # fmt: skip
    with pytest.raises((openai.APIError, httpx.HTTPError)):
        for _ in client.responses.create(model="gpt-5-mini", input="hi", stream=True):
            pass
    answer = httpx.post(
        f"{served.url}/v1/responses",
        json={"model": "gpt-5-mini", "input": "hi", "stream": True},
        headers={"x-sseconform-fault": "error-at=2"},
    )
    events = [line for line in answer.content.split(b"\n") if line.startswith(b"event: ")]
    assert len(events) == 3 and events[-1] == b"event: error", events


def test_a_session_and_sse_recordings_together(session: Path) -> None:
    """Loaded beside an SSE recording, the session answers the upgrade and the SSE one the
    POST."""
    import httpx

    with ReplayServer([load(str(session)), load(str(TEXT))], speed=0).running() as srv:
        post = httpx.post(f"{srv.url}/v1/responses",
                          json={"model": "gpt-5-mini", "input": "x", "stream": True})  # fmt: skip
        assert post.status_code == 200 and b"response.completed" in post.content
        raw = Raw(srv.port)
        assert raw.status == 101
        raw.create(input="hi")
        assert json.loads(raw.messages()[-1])["type"] == "response.completed"
        raw.close()
    assert HOST == "127.0.0.1"


def _error_session(path: Path, failed_after: float | None) -> Path:
    """A recorded session whose turn fails with OpenAI's SSE error shape (nested, no
    status), then ``response.failed`` ``failed_after`` seconds later (None: never)."""
    created = {"type": "response.created", "sequence_number": 0,
               "response": {"id": "resp_grace", "status": "in_progress", "output": []}}  # fmt: skip
    error = {"type": "error", "error": {"type": "server_error", "code": "server_error",
                                        "message": "boom"}, "sequence_number": 1}  # fmt: skip
    failed = {"type": "response.failed", "sequence_number": 2,
              "response": {"id": "resp_grace", "status": "failed", "output": []}}  # fmt: skip
    w = RecordingWriter(path, request={"method": "GET", "url": "http://x/v1/responses"},
                        transport="websocket")  # fmt: skip
    w.response(Response(101, "Switching Protocols", "HTTP/1.1", []), t=0.001)
    w.sent(0.002, "text", json.dumps({"type": "response.create", "input": "hi"}))
    w.read(0.01, frame(json.dumps(created).encode()))
    w.read(0.02, frame(json.dumps(error).encode()))
    if failed_after is not None:
        w.read(0.02 + failed_after, frame(json.dumps(failed).encode()))
    w.read(0.6, frame((1000).to_bytes(2, "big"), 0x8))  # the server's answer to our Close
    w.close(t=0.6, close={"by": "client", "code": 1000, "reason": ""})
    return path


@pytest.mark.parametrize("failed_after", [0.3, None], ids=["failed-follows", "error-alone"])
def test_record_reads_on_after_an_error_without_a_status(
    tmp_path: Path, failed_after: float | None
) -> None:
    """An error event without a status does not end the turn for Codex CLI (measured): the
    recorder reads on for a ``response.failed`` (a second at most), so check sees the turn
    as the client did."""
    src = _error_session(tmp_path / "src.jsonl", failed_after)
    out = tmp_path / "out.jsonl"
    with ReplayServer([load(str(src))], speed=1).running() as srv:
        got = record_websocket(f"{srv.url}/v1/responses", [{"input": "hi"}], str(out))
    assert got.ok and got.answered == 1, got.reason
    data, _ = server_side(out)
    assert (b'"response.failed"' in data) is (failed_after is not None)
    codes = check_file(out, grammar="responses").codes
    assert ("S084" in codes) is (failed_after is None)
