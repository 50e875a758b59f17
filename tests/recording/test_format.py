"""The recording file: round trip, refusal to overwrite, and files a dead writer left behind."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest

from sseconform.recording.format import (
    FORMAT,
    VERSION,
    RecordingError,
    RecordingReader,
    RecordingWriter,
    Response,
    looks_like_recording,
    write_recording,
)

RESPONSE = Response(
    200,
    "OK",
    "HTTP/1.1",
    [("Content-Type", "text/event-stream; charset=utf-8"), ("X-Request-Id", "req_1")],
)
TEXT_READ = b'data: {"id":"chatcmpl-1"}\n\n'
BINARY_READ = b"data: \xff\xfe\x00 latin-1 \xe9\n"
# "café" with its two-byte "é" (c3 a9) cut between two reads: neither read is UTF-8 alone.
SPLIT_FIRST = b'data: {"content":"caf\xc3'
SPLIT_SECOND = b'\xa9"}\n\n'
READS = [
    (0.000512, TEXT_READ),
    (0.25, BINARY_READ),
    (0.5, SPLIT_FIRST),
    (0.5000004, SPLIT_SECOND),
    (0.75, b""),
    (1.0, "data: ünïcödé ✓ \u2028\r\n\n".encode()),
]


def _lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(ln) for ln in path.read_bytes().splitlines()]


def _read_all(path: Path) -> tuple[RecordingReader, list[tuple[float, bytes]]]:
    with open(path, "rb") as fp:
        reader = RecordingReader(fp, str(path))
        reads = list(reader.reads())
    return reader, reads


def _whole(tmp_path: Path, name: str = "rec.jsonl") -> Path:
    path = tmp_path / name
    write_recording(path, READS, response=RESPONSE, request={"url": "http://x/v1"})
    return path


# -- round trip --------------------------------------------------------------------------


def test_writer_reader_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    w = RecordingWriter(path, request={"method": "POST", "url": "http://x/v1"}, extra={"tag": 7})
    w.response(RESPONSE)
    for t, data in READS:
        w.read(t, data)
    w.close(t=1.25)
    w.close()  # a second close is a no-op, not a second end line

    reader, reads = _read_all(path)
    assert reader.header["format"] == FORMAT
    assert reader.header["version"] == VERSION
    assert reader.header["tag"] == 7
    assert reader.request == {"method": "POST", "url": "http://x/v1"}
    assert reader.response == RESPONSE
    assert reader.response is not None
    assert reader.response.header("content-type") == "text/event-stream; charset=utf-8"
    assert reader.response.header("x-request-id") == "req_1"
    assert reader.response.header("missing") is None
    assert [data for _, data in reads] == [data for _, data in READS]
    assert [t for t, _ in reads] == [round(t, 6) for t, _ in READS]
    assert b"".join(d for _, d in reads[2:4]) == 'data: {"content":"café"}\n\n'.encode()
    assert reader.end is not None
    assert reader.end.t == 1.25
    assert reader.complete
    assert reader.incomplete_reason() is None
    assert len(path.read_bytes().splitlines()) == 2 + len(READS) + 1


def test_text_reads_stay_readable_and_others_are_base64(tmp_path: Path) -> None:
    lines = _lines(_whole(tmp_path))
    assert set(lines[0]) >= {"format", "version", "created", "request"}
    assert "response" in lines[1]
    read_lines = lines[2:-1]
    assert read_lines[0] == {"t": 0.000512, "text": TEXT_READ.decode()}
    assert "text" not in read_lines[1]
    assert base64.b64decode(str(read_lines[1]["b64"])) == BINARY_READ
    # each half of a cut character is stored exactly, as base64, never "repaired"
    assert base64.b64decode(str(read_lines[2]["b64"])) == SPLIT_FIRST
    assert base64.b64decode(str(read_lines[3]["b64"])) == SPLIT_SECOND
    assert read_lines[4] == {"t": 0.75, "text": ""}
    assert read_lines[5]["text"] == "data: ünïcödé ✓ \u2028\r\n\n"
    assert lines[-1] == {"end": {"complete": True, "reason": "eof", "t": 1.0}}


def test_file_is_human_readable_utf8(tmp_path: Path) -> None:
    raw = _whole(tmp_path).read_bytes()
    assert raw.decode("utf-8")  # the file itself is always valid UTF-8
    assert "ünïcödé".encode() in raw  # not escaped to \\u sequences
    assert looks_like_recording(raw[:64])
    assert looks_like_recording(b"\xef\xbb\xbf" + raw[:64])
    assert not looks_like_recording(b"data: {}\n\n")


def test_write_recording_without_reads(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    write_recording(path, [])
    reader, reads = _read_all(path)
    assert reads == []
    assert reader.response is None
    assert reader.request is None
    assert reader.complete
    assert reader.end is not None
    assert reader.end.t == 0.0


def test_close_incomplete_keeps_the_reason(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    w = RecordingWriter(path)
    w.read(0.1, TEXT_READ)
    w.close(complete=False, reason="timeout after 30 s")
    reader, reads = _read_all(path)
    assert reads == [(0.1, TEXT_READ)]
    assert not reader.complete
    assert reader.incomplete_reason() == "timeout after 30 s"


# -- overwrite protection ----------------------------------------------------------------


def test_writer_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_bytes(b"precious\n")
    with pytest.raises(FileExistsError):
        RecordingWriter(path)
    with pytest.raises(FileExistsError):
        RecordingWriter(path, force=False)
    with pytest.raises(FileExistsError):
        write_recording(path, READS, response=RESPONSE)
    assert path.read_bytes() == b"precious\n"


def test_force_overwrites(tmp_path: Path) -> None:
    path = tmp_path / "rec.jsonl"
    path.write_bytes(b"old\n")
    write_recording(path, READS, force=True)
    reader, reads = _read_all(path)
    assert [d for _, d in reads] == [d for _, d in READS]
    assert reader.complete


# -- files a writer left unfinished -------------------------------------------------------


def test_file_cut_inside_its_last_line_still_loads(tmp_path: Path) -> None:
    """A writer killed mid-write: no end line, and the last line stops half way."""
    whole = _whole(tmp_path).read_bytes().splitlines(keepends=True)
    body = whole[:-1]  # the end line was never written
    last = body[-1]
    cut = b"".join(body[:-1]) + last[: len(last) // 2]  # ... and the last read is half written
    path = tmp_path / "cut.jsonl"
    path.write_bytes(cut)

    reader, reads = _read_all(path)
    assert [d for _, d in reads] == [d for _, d in READS[:-1]]
    assert reader.end is None
    assert not reader.complete
    assert reader.truncated_line == len(body)
    reason = reader.incomplete_reason()
    assert reason is not None
    assert f"line {len(body)}" in reason


def test_end_line_without_its_newline_counts_as_cut(tmp_path: Path) -> None:
    raw = _whole(tmp_path).read_bytes()
    path = tmp_path / "cut.jsonl"
    path.write_bytes(raw[:-1])
    reader, reads = _read_all(path)
    assert len(reads) == len(READS)
    assert not reader.complete
    assert reader.incomplete_reason() is not None


def test_no_end_line_is_incomplete(tmp_path: Path) -> None:
    lines = _whole(tmp_path).read_bytes().splitlines(keepends=True)
    path = tmp_path / "noend.jsonl"
    path.write_bytes(b"".join(lines[:-1]))
    reader, reads = _read_all(path)
    assert [d for _, d in reads] == [d for _, d in READS]
    assert reader.truncated_line is None
    assert not reader.complete
    reason = reader.incomplete_reason()
    assert reason is not None
    assert "no end line" in reason


def test_header_only_is_incomplete(tmp_path: Path) -> None:
    lines = _whole(tmp_path).read_bytes().splitlines(keepends=True)
    reader = RecordingReader(io.BytesIO(lines[0]))
    assert list(reader.reads()) == []
    assert reader.response is None
    assert reader.incomplete_reason() is not None


# -- broken files ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("lineno", "bad"),
    [
        (2, b'{"response": {"status": 200\n'),
        (4, b'{"t": 0.1, "text": "abc\n'),
        (5, b"not json at all\n"),
        (5, b"[1, 2, 3]\n"),
        (6, b'{"t": "soon", "text": "x"}\n'),
        (6, b'{"t": 0.1}\n'),
        (6, b'{"t": 0.1, "b64": "***"}\n'),
    ],
)
def test_corrupt_middle_line_names_its_line(tmp_path: Path, lineno: int, bad: bytes) -> None:
    lines = _whole(tmp_path).read_bytes().splitlines(keepends=True)
    lines[lineno - 1] = bad
    path = tmp_path / "corrupt.jsonl"
    path.write_bytes(b"".join(lines))
    with pytest.raises(RecordingError) as info, open(path, "rb") as fp:
        list(RecordingReader(fp, str(path)).reads())
    assert info.value.line == lineno
    assert info.value.path == str(path)
    assert str(info.value).startswith(f"{path}:{lineno}: ")


def test_data_after_the_end_line(tmp_path: Path) -> None:
    path = _whole(tmp_path)
    n = len(path.read_bytes().splitlines())
    with open(path, "ab") as fp:
        fp.write(b'{"t": 2.0, "text": "late"}\n')
    with pytest.raises(RecordingError) as info, open(path, "rb") as fp:
        list(RecordingReader(fp, str(path)).reads())
    assert info.value.line == n + 1


@pytest.mark.parametrize("version", [0, 2, "1", None])
def test_bad_version(tmp_path: Path, version: object) -> None:
    lines = _whole(tmp_path).read_bytes().splitlines(keepends=True)
    header = json.loads(lines[0])
    header["version"] = version
    lines[0] = json.dumps(header).encode() + b"\n"
    path = tmp_path / "v.jsonl"
    path.write_bytes(b"".join(lines))
    with pytest.raises(RecordingError) as info, open(path, "rb") as fp:
        RecordingReader(fp, str(path))
    assert info.value.line == 1
    assert "version" in info.value.message
    assert repr(version) in info.value.message


@pytest.mark.parametrize(
    "first",
    [b"", b'{"format": "something-else", "version": 1}\n', b"data: {}\n\n"],
)
def test_not_a_recording(first: bytes) -> None:
    with pytest.raises(RecordingError) as info:
        RecordingReader(io.BytesIO(first))
    assert info.value.line == 1


def test_deeply_nested_line_is_a_recording_error(tmp_path: Path) -> None:
    lines = _whole(tmp_path).read_bytes().splitlines(keepends=True)
    lines[3] = b"[" * 100_000 + b"]" * 100_000 + b"\n"
    with pytest.raises(RecordingError) as info:
        list(RecordingReader(io.BytesIO(b"".join(lines))).reads())
    assert info.value.line == 4


@pytest.mark.parametrize("headers", ["5", '[["content-type"]]', '"abc"'])
def test_bad_response_headers_are_a_recording_error(tmp_path: Path, headers: str) -> None:
    lines = _whole(tmp_path).read_bytes().splitlines(keepends=True)
    lines[1] = f'{{"response": {{"status": 200, "headers": {headers}}}}}\n'.encode()
    with pytest.raises(RecordingError) as info:
        list(RecordingReader(io.BytesIO(b"".join(lines))).reads())
    assert info.value.line == 2


def test_boolean_t_is_not_a_number(tmp_path: Path) -> None:
    lines = _whole(tmp_path).read_bytes().splitlines(keepends=True)
    lines[2] = b'{"t": true, "text": "x"}\n'
    with pytest.raises(RecordingError) as info:
        list(RecordingReader(io.BytesIO(b"".join(lines))).reads())
    assert info.value.line == 3
