"""``record --transport websocket`` against replay's WebSocket mode on 127.0.0.1: the server's
bytes after the 101 decode (as a client decodes them) to replay's messages exactly, the turns
sent are ``sent`` lines, secrets are masked, a refusal and a close are recorded as they came,
and bad input is refused with a message, before anything is sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from wsproto.connection import Connection, ConnectionType
from wsproto.events import CloseConnection, TextMessage

from sseconform.record.websocket import _Frames, record_websocket
from sseconform.recording.format import RecordingReader, Sent
from sseconform.recording.redact import Redactor
from sseconform.replay.plan import load
from sseconform.replay.server import ReplayServer
from tests.record import sseconform, workdir
from tests.replay.conftest import RECORDINGS_DIR

TEXT = "text-responses.jsonl"
KEY = "sk-wstest-0123456789abcdef"
BODY = '{"model": "gpt-5-mini", "input": "hi", "stream": true}'
AGAIN = '{"model": "gpt-5-mini", "input": [{"role": "user", "content": "again"}]}'


def events_of(name: str) -> list[str]:
    """replay's messages for a recording: each SSE event's data, as it sends them."""
    from sseconform.replay.websocket import recorded_messages

    return [m.text for m in recorded_messages(load(str(RECORDINGS_DIR / "responses" / name)))]


@pytest.fixture
def server(request: pytest.FixtureRequest) -> Iterator[ReplayServer]:
    fault = getattr(request, "param", None)
    srv = ReplayServer([load(str(RECORDINGS_DIR / "responses" / TEXT))], speed=0, fault=fault)
    with srv.running():
        yield srv


def session(path: Path) -> tuple[RecordingReader, list[tuple[float, bytes | Sent]]]:
    with open(path, "rb") as fp:
        reader = RecordingReader(fp, str(path), websocket=True)
        return reader, list(reader.session())


def decoded(items: list[tuple[float, bytes | Sent]]) -> tuple[list[str], list[Any]]:
    """The server's bytes read as a client reads them: its whole text messages, and the
    other events (a Close)."""
    ws = Connection(ConnectionType.CLIENT)
    messages, other, parts = [], [], []
    for _, item in items:
        if not isinstance(item, bytes):
            continue
        ws.receive_data(item)
        for event in ws.events():
            if isinstance(event, TextMessage):
                parts.append(event.data)
                if event.message_finished:
                    messages.append("".join(parts))
                    parts = []
            else:
                other.append(event)
    return messages, other


def run(srv: ReplayServer, tmp_path: Path, *args: str) -> tuple[Any, Path]:
    out = tmp_path / "ws.jsonl"
    got = sseconform(
        "record", f"{srv.url}/v1/responses", "--transport", "websocket", "-o", out,
        "-H", f"Authorization: Bearer {KEY}", *args, cwd=workdir(tmp_path),
    )  # fmt: skip
    return got, out


def test_one_turn_decodes_to_replays_messages(server: ReplayServer, tmp_path: Path) -> None:
    got, out = run(server, tmp_path, "-d", BODY)
    assert got.code == 0, got.both
    assert "complete; WebSocket, 1 of 1 turns answered" in got.err
    assert "closed 1000 by the client" in got.err
    reader, items = session(out)
    assert reader.header["transport"] == "websocket" and reader.header["version"] == 2
    assert reader.response is not None and reader.response.status == 101
    sent = [i for _, i in items if isinstance(i, Sent)]
    assert len(sent) == 1 and sent[0].op == "text"
    # type added, stream dropped
    assert json.loads(sent[0].text) == {"type": "response.create", "model": "gpt-5-mini",
                                        "input": "hi"}  # fmt: skip
    messages, other = decoded(items)
    assert messages == events_of(TEXT)
    assert [type(e) for e in other] == [CloseConnection]  # the server's answer to our Close
    assert reader.end is not None and reader.end.complete and reader.end.close is not None
    assert (reader.end.close.by, reader.end.close.code) == ("client", 1000)
    times = [t for t, _ in items]
    assert times == sorted(times) and all(t >= reader.response.t for t in times)  # type: ignore[operator]


def test_chained_two_turns(server: ReplayServer, tmp_path: Path) -> None:
    got, out = run(server, tmp_path, "-d", BODY, "-d", AGAIN, "--chain")
    assert got.code == 0, got.both
    _, items = session(out)
    sent = [json.loads(i.text) for _, i in items if isinstance(i, Sent)]
    messages, _ = decoded(items)
    assert messages == events_of(TEXT) * 2
    first = json.loads(messages[len(events_of(TEXT)) - 1])
    assert first["type"] == "response.completed"
    assert "previous_response_id" not in sent[0]
    assert sent[1]["previous_response_id"] == first["response"]["id"]
    assert sent[1]["input"] == [{"role": "user", "content": "again"}]
    # the second turn went out after the first's last event arrived
    t_sent = [t for t, i in items if isinstance(i, Sent)]
    assert t_sent[1] >= max(t for t, i in items if isinstance(i, bytes) and t < t_sent[1])
    # replay saw the chained turn and knew the id: no error event came back
    assert all(json.loads(m)["type"] != "error" for m in messages)


def test_secrets_never_reach_the_file(server: ReplayServer, tmp_path: Path) -> None:
    body = json.dumps({"model": "gpt-5-mini", "input": "hi", "api_key": KEY})
    got, out = run(server, tmp_path, "-d", body)
    text = out.read_text()
    assert KEY not in text and KEY not in got.both
    head = json.loads(text.splitlines()[0])
    auth = [v for k, v in head["request"]["headers"] if k.lower() == "authorization"]
    assert auth == ["[REDACTED]"]
    assert "request.headers.authorization" in head["redacted"]
    sent = json.loads(text.splitlines()[2])["sent"]
    assert json.loads(sent["text"])["api_key"] == "[REDACTED]"


@pytest.mark.parametrize("server", ["ws-refuse=426"], indirect=True)
def test_a_refused_upgrade_is_recorded_as_the_refusal(server: ReplayServer, tmp_path: Path) -> None:
    got, out = run(server, tmp_path, "-d", BODY)
    assert got.code == 1
    assert "the server refused the upgrade: HTTP 426" in got.err
    reader, items = session(out)
    assert reader.response is not None and reader.response.status == 426
    assert reader.response.header("upgrade") == "websocket"
    body = b"".join(i for _, i in items if isinstance(i, bytes))
    assert b"ws-refuse=426" in body and not any(isinstance(i, Sent) for _, i in items)


@pytest.mark.parametrize("server", ["ws-close=1011@2"], indirect=True)
def test_a_close_mid_response_is_recorded_with_its_code(
    server: ReplayServer, tmp_path: Path
) -> None:
    got, out = run(server, tmp_path, "-d", BODY, "-d", AGAIN)
    assert got.code == 1, got.both
    assert "closed 1011 by the server in turn 1 (after 2 messages)" in got.err
    reader, items = session(out)
    messages, other = decoded(items)
    assert messages == events_of(TEXT)[:2]
    assert [(type(e), e.code) for e in other] == [(CloseConnection, 1011)]
    assert reader.end is not None and reader.end.close is not None
    assert (reader.end.close.by, reader.end.close.code) == ("server", 1011)
    assert len([i for _, i in items if isinstance(i, Sent)]) == 1  # turn 2 never went out


def test_a_recording_is_not_replaced(server: ReplayServer, tmp_path: Path) -> None:
    (tmp_path / "ws.jsonl").write_text("mine")
    got, out = run(server, tmp_path, "-d", BODY)
    assert got.code == 2 and "exists (use --force" in got.err
    assert out.read_text() == "mine"


@pytest.mark.parametrize(
    ("url", "args", "words"),
    [
        ("http://127.0.0.1:9/v1/responses", ["-d", "not json"], "-d turn 1: not JSON"),
        ("http://127.0.0.1:9/v1/responses", ["-d", "[1]"], "a JSON object"),
        ("ftp://127.0.0.1/v1/responses", ["-d", BODY], "is not an http(s) or ws(s) URL"),
        ("http://127.0.0.1:9/v1/responses", [], "give each turn's response.create body"),
        ("http://127.0.0.1:9/v1/responses", ["-d", BODY, "--raw", "x"], "--raw: not with"),
    ],
)
def test_bad_input_is_refused_before_anything(
    tmp_path: Path, url: str, args: list[str], words: str
) -> None:
    got = sseconform("record", url, "--transport", "websocket", "-o", tmp_path / "o.jsonl",
                     *args, cwd=workdir(tmp_path))  # fmt: skip
    assert got.code == 2 and words in got.err, got.both
    assert not (tmp_path / "o.jsonl").exists()


def test_several_data_without_websocket_is_refused(tmp_path: Path) -> None:
    got = sseconform("record", "http://127.0.0.1:9/v1/x", "-d", "{}", "-d", "{}", "-o",
                     tmp_path / "o.jsonl", cwd=workdir(tmp_path))  # fmt: skip
    assert got.code == 2 and "--transport websocket" in got.err


def test_nothing_answered_leaves_no_file(tmp_path: Path) -> None:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: the connection is refused
        got = sseconform("record", f"ws://127.0.0.1:{port}/v1/responses", "--transport",
                         "websocket", "-d", BODY, "-o", tmp_path / "o.jsonl",
                         cwd=workdir(tmp_path))  # fmt: skip
    assert got.code == 1 and "nothing recorded: could not connect" in got.err
    assert not (tmp_path / "o.jsonl").exists()


def test_a_session_recorded_from_replay_checks_clean(server: ReplayServer, tmp_path: Path) -> None:
    """Two chained turns recorded from replay's WebSocket mode: the Responses grammar over
    each turn and the WebSocket rules find nothing; inspect shows the second turn."""
    _, out = run(server, tmp_path, "-d", BODY, "-d", AGAIN, "--chain")
    got = sseconform("check", out, "--strict", cwd=workdir(tmp_path))
    assert got.code == 0, got.both
    assert "0 errors, 0 warnings, 0 infos" in got.out
    shown = sseconform("inspect", "--no-live", "--speed", "0", "--turn", "2", out,
                       cwd=workdir(tmp_path))  # fmt: skip
    assert shown.code == 0 and "response.completed" in shown.out, shown.both


def test_library_call_stalls_and_bounds(server: ReplayServer, tmp_path: Path) -> None:
    out = tmp_path / "capped.jsonl"
    o = record_websocket(f"{server.url}/v1/responses", [json.loads(BODY)], str(out),
                         max_bytes=500)  # fmt: skip
    assert not o.complete and o.bound == "max-bytes" and o.bytes == 500
    reader, items = session(out)
    assert reader.end is not None and not reader.end.complete
    assert sum(len(i) for _, i in items if isinstance(i, bytes)) == 500


# -- frames masked (pure) -----------------------------------------------------------------------


def server_frames(*texts: str) -> bytes:
    from wsproto.connection import Connection as Conn

    srv = Conn(ConnectionType.SERVER)
    return b"".join(srv.send(TextMessage(t)) for t in texts)


def test_frames_pass_unchanged_whatever_the_reads() -> None:
    data = server_frames("a" * 10, "b" * 300, "c" * 70_000)
    frames = _Frames(Redactor(), 1 << 20)
    out = b"".join(frames.feed(data[i : i + 7]) for i in range(0, len(data), 7))
    assert out + frames.finish() == data


def test_a_secret_in_a_frame_is_masked_and_the_frame_still_decodes() -> None:
    red = Redactor()
    data = server_frames("ok", f"Incorrect API key provided: {KEY}. Bye" + "x" * 200)
    frames = _Frames(red, 1 << 20)
    out = frames.feed(data[:5]) + frames.feed(data[5:])
    assert KEY.encode() not in out and "response.frames" in red.found
    ws = Connection(ConnectionType.CLIENT)
    ws.receive_data(out)
    texts = [e.data for e in ws.events() if isinstance(e, TextMessage)]
    assert texts[0] == "ok" and texts[1].startswith("Incorrect API key provided: [REDACTED]")


def test_a_frame_past_the_cap_is_a_bound() -> None:
    from sseconform.recording.bounds import BoundHit

    with pytest.raises(BoundHit) as caught:
        _Frames(Redactor(), 1000).feed(server_frames("x" * 2000)[:4])
    assert caught.value.kind == "message"
