"""A WebSocket session in the recording format: version 2, ``sent`` lines, the close in the
end line; a reader that does not read sessions refuses one on line 1, naming its command."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from sseconform.recording.format import (
    VERSION,
    WS_VERSION,
    Close,
    RecordingError,
    RecordingReader,
    RecordingWriter,
    Response,
    Sent,
)


def session_file(path: Path) -> Path:
    w = RecordingWriter(path, request={"method": "GET", "url": "ws://x/v1/responses"},
                        transport="websocket")  # fmt: skip
    w.response(Response(101, "Switching Protocols", "HTTP/1.1", [("upgrade", "websocket")]), t=0.01)
    w.sent(0.011, "text", '{"type": "response.create"}')
    w.read(0.02, b"\x81\x02hi")
    w.read(0.03, b"\x88\x02\x03\xe8")
    w.close(t=0.04, close={"by": "server", "code": 1000, "reason": ""})
    return path


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text().splitlines()]


def test_session_round_trips(tmp_path: Path) -> None:
    path = session_file(tmp_path / "s.jsonl")
    head = lines(path)[0]
    assert head["version"] == WS_VERSION and head["transport"] == "websocket"
    with open(path, "rb") as fp:
        reader = RecordingReader(fp, str(path), websocket=True)
        items = list(reader.session())
    assert reader.transport == "websocket" and reader.response is not None
    assert reader.response.status == 101
    assert items == [
        (0.011, Sent("text", '{"type": "response.create"}')),
        (0.02, b"\x81\x02hi"),
        (0.03, b"\x88\x02\x03\xe8"),
    ]
    assert reader.end is not None and reader.end.close == Close("server", 1000, "")
    with open(path, "rb") as fp:  # reads() passes over what the client sent
        assert [d for _, d in RecordingReader(fp, websocket=True).reads()] == [
            b"\x81\x02hi",
            b"\x88\x02\x03\xe8",
        ]


def test_http_recording_stays_version_1(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    RecordingWriter(path).close()
    assert lines(path)[0]["version"] == VERSION == 1 and "transport" not in lines(path)[0]


def test_a_reader_that_does_not_read_sessions_names_its_command(tmp_path: Path) -> None:
    path = session_file(tmp_path / "s.jsonl")
    with open(path, "rb") as fp, pytest.raises(RecordingError) as caught:
        RecordingReader(fp, str(path), by="check")
    assert caught.value.line == 1
    assert caught.value.message == "a WebSocket recording: not supported by check yet"


def _with(path: Path, n: int, change: dict[str, Any]) -> bytes:
    objs = lines(path)
    objs[n] = {**objs[n], **change}
    return "".join(json.dumps(o) + "\n" for o in objs).encode()


@pytest.mark.parametrize(
    ("n", "change", "line", "words"),
    [
        (0, {"version": 1}, 1, "version 1 with transport 'websocket'"),
        (0, {"transport": "carrier-pigeon"}, 1, "transport 'carrier-pigeon'"),
        (2, {"sent": {"op": "shout", "text": "x"}}, 3, 'a sent line needs "op"'),
        (2, {"sent": {"op": "text", "text": 3}}, 3, 'a sent line needs "text"'),
        (5, {"end": {"complete": True, "reason": "", "close": {"by": "x"}}}, 6, "bad close"),
        (5, {"end": {"complete": True, "reason": "", "close": {"by": "server", "code": 7}}}, 6,
         "code 7"),
    ],
)  # fmt: skip
def test_damaged_sessions_say_where(
    tmp_path: Path, n: int, change: dict[str, Any], line: int, words: str
) -> None:
    data = _with(session_file(tmp_path / "s.jsonl"), n, change)
    with pytest.raises(RecordingError) as caught:
        list(RecordingReader(io.BytesIO(data), "s.jsonl", websocket=True).session())
    assert caught.value.line == line and words in caught.value.message


def test_a_sent_line_in_an_http_recording_is_no_read(tmp_path: Path) -> None:
    path = tmp_path / "h.jsonl"
    w = RecordingWriter(path)
    w.sent(0.1, "text", "hi")
    w.close()
    with open(path, "rb") as fp, pytest.raises(RecordingError) as caught:
        list(RecordingReader(fp, str(path)).reads())
    assert caught.value.line == 2 and "neither" in caught.value.message


@pytest.mark.parametrize(
    ("args", "by"),
    [(["translate", "--to", "chat"], "translate")],
)  # fmt: skip
def test_commands_that_do_not_read_sessions_say_so(
    tmp_path: Path, args: list[str], by: str
) -> None:
    from tests.record import sseconform, workdir

    path = session_file(tmp_path / "s.jsonl")
    run = sseconform(*args, path, cwd=workdir(tmp_path))
    assert run.code != 0, run.both
    assert f"s.jsonl: line 1: a WebSocket recording: not supported by {by} yet" in run.both, (
        run.both
    )
