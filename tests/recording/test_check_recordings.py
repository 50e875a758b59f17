"""Checking recordings: the H rules, and diagnostics that point into the recorded body.

Rules H001-H003 need a recording file, so these cases are built at test time.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sseconform import check_bytes
from sseconform.api import check_file
from sseconform.recording.format import Response, write_recording
from tests.cli.helpers import run_cli
from tests.conftest import CASES

GOOD_BODY = (CASES / "pass" / "plain-text" / "stream.sse").read_bytes()
T001_BODY = (CASES / "fail" / "T001-head-missing-id" / "stream.sse").read_bytes()
SSE_HEADERS = [("Content-Type", "text/event-stream; charset=utf-8")]
ERROR_BODY = b'{"error": {"message": "Rate limit reached", "type": "rate_limit_exceeded"}}'


def _split(body: bytes, size: int) -> list[tuple[float, bytes]]:
    return [(i / 1000, body[i : i + size]) for i in range(0, len(body), size)]


def _record(
    path: Path, body: bytes, status: int = 200, headers: list[tuple[str, str]] | None = None
) -> Path:
    resp = Response(status, "OK" if status == 200 else "", "HTTP/1.1", headers or SSE_HEADERS)
    write_recording(path, _split(body, 37), response=resp, request={"url": "http://x/v1"})
    return path


def _json_report(path: Path, *extra: str) -> tuple[int, dict[str, object]]:
    run = run_cli("check", "--format", "json", *extra, path.name, cwd=path.parent)
    return run.code, json.loads(run.out)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A directory whose pyproject.toml has no [tool.sseconform]: no stray settings apply."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    return tmp_path


# -- H001 ----------------------------------------------------------------------------------


def test_h001_http_429_with_json_body(workdir: Path) -> None:
    rec = workdir / "h001.jsonl"
    write_recording(
        rec,
        [(0.05, ERROR_BODY)],
        response=Response(
            429, "Too Many Requests", "HTTP/1.1", [("content-type", "application/json")]
        ),
    )
    result = check_file(rec)
    assert result.kind == "recording"
    assert result.codes == {"H001"}
    assert "429" in result.findings[0].message
    assert result.ok()
    assert result.ok(strict=True)  # H001 is info: an error status is the right way to fail

    code, doc = _json_report(rec)
    assert code == 0
    files = doc["files"]
    assert isinstance(files, list)
    assert [d["code"] for d in files[0]["findings"]] == ["H001"]
    assert files[0]["kind"] == "recording"
    assert run_cli("check", "--strict", rec.name, cwd=workdir).code == 0


# -- H002 ----------------------------------------------------------------------------------


def test_h002_200_with_json_content_type(workdir: Path) -> None:
    rec = _record(
        workdir / "h002.jsonl", ERROR_BODY, headers=[("content-type", "application/json")]
    )
    result = check_file(rec)
    assert "H002" in result.codes
    assert "application/json" in next(d for d in result.findings if d.code == "H002").message
    assert not result.ok()
    run = run_cli("check", rec.name, cwd=workdir)
    assert run.code == 1
    assert "H002" in run.out


def test_h002_alone_when_the_body_is_a_good_stream(workdir: Path) -> None:
    rec = _record(workdir / "h002.jsonl", GOOD_BODY, headers=[("content-type", "application/json")])
    assert check_file(rec).codes == {"H002"}
    assert run_cli("check", rec.name, cwd=workdir).code == 1


def test_h002_when_content_type_is_missing(workdir: Path) -> None:
    rec = _record(workdir / "h002.jsonl", GOOD_BODY, headers=[("x-other", "1")])
    assert check_file(rec).codes == {"H002"}


@pytest.mark.parametrize(
    "ctype", ["text/event-stream", "TEXT/Event-Stream", "text/event-stream ; charset=UTF-8"]
)
def test_event_stream_content_type_variants_are_accepted(tmp_path: Path, ctype: str) -> None:
    rec = _record(tmp_path / "ok.jsonl", GOOD_BODY, headers=[("CONTENT-TYPE", ctype)])
    assert check_file(rec).codes == set()


# -- H003 ----------------------------------------------------------------------------------


def test_h003_no_end_line(workdir: Path) -> None:
    whole = _record(workdir / "whole.jsonl", GOOD_BODY).read_bytes().splitlines(keepends=True)
    rec = workdir / "h003.jsonl"
    rec.write_bytes(b"".join(whole[:-1]))
    result = check_file(rec)
    assert result.codes == {"H003"}  # the body itself was whole: only the end mark is missing
    assert "no end line" in result.findings[0].message
    assert run_cli("check", rec.name, cwd=workdir).code == 0  # H003 is a warning
    assert run_cli("check", "--strict", rec.name, cwd=workdir).code == 1


def test_h003_file_cut_mid_line(workdir: Path) -> None:
    whole = _record(workdir / "whole.jsonl", GOOD_BODY).read_bytes().splitlines(keepends=True)
    body = whole[:-1]
    rec = workdir / "cut.jsonl"
    rec.write_bytes(b"".join(body[:-1]) + body[-1][:20])
    result = check_file(rec)
    assert "H003" in result.codes
    h003 = next(d for d in result.findings if d.code == "H003")
    assert f"line {len(body)}" in h003.message
    # the last read was lost, so the body itself now ends early
    assert result.codes - {"H003"}
    assert run_cli("check", rec.name, cwd=workdir).code == 1


def test_h003_marked_incomplete_by_the_recorder(tmp_path: Path) -> None:
    from sseconform.recording.format import RecordingWriter

    rec = tmp_path / "timeout.jsonl"
    w = RecordingWriter(rec)
    w.response(Response(200, "OK", "HTTP/1.1", SSE_HEADERS))
    for t, data in _split(GOOD_BODY, 64):
        w.read(t, data)
    w.close(complete=False, reason="read timeout")
    result = check_file(rec)
    assert result.codes == {"H003"}
    assert "read timeout" in result.findings[0].message


# -- conforming recordings -----------------------------------------------------------------


def test_conforming_recording(workdir: Path) -> None:
    rec = _record(workdir / "good.jsonl", GOOD_BODY)
    result = check_file(rec)
    assert result.kind == "recording"
    assert result.findings == []
    assert result.bytes == len(GOOD_BODY)
    assert result.frames == check_bytes(GOOD_BODY).frames

    code, doc = _json_report(rec, "--strict")
    assert code == 0
    files = doc["files"]
    assert isinstance(files, list)
    assert files[0]["kind"] == "recording"
    assert files[0]["ok"] is True
    assert files[0]["findings"] == []
    assert files[0]["bytes"] == len(GOOD_BODY)


def test_utf8_character_split_between_reads_is_not_w001(tmp_path: Path) -> None:
    body = GOOD_BODY.replace(b"Hello", "Héllo".encode())
    assert body != GOOD_BODY
    cut = body.index("é".encode()) + 1
    rec = tmp_path / "split.jsonl"
    write_recording(
        rec,
        [(0.1, body[:cut]), (0.2, body[cut:])],
        response=Response(200, "OK", "HTTP/1.1", SSE_HEADERS),
    )
    lines = [json.loads(ln) for ln in rec.read_bytes().splitlines()]
    assert "b64" in lines[2]
    assert "b64" in lines[3]
    assert check_file(rec).codes == set()


def test_recording_without_response_line_is_checked_as_a_body(tmp_path: Path) -> None:
    rec = tmp_path / "bare.jsonl"
    write_recording(rec, _split(GOOD_BODY, 100))
    result = check_file(rec)
    assert result.kind == "recording"
    assert result.codes == set()


def test_recording_larger_than_the_first_read(tmp_path: Path) -> None:
    """The format is sniffed from the first 256 KiB; lines across that edge must survive."""
    lines = GOOD_BODY.split(b"\n\n")
    role, rest = lines[0] + b"\n\n", b"\n\n".join(lines[1:])
    content = role.replace(b'"content":""', b'"content":"' + b"x" * 700_000 + b'"')
    body = content + rest
    rec = tmp_path / "big.jsonl"
    write_recording(rec, _split(body, 100_003), response=Response(200, "OK", "", SSE_HEADERS))
    assert rec.stat().st_size > 256 * 1024
    result = check_file(rec)
    assert result.findings == check_bytes(body).findings
    assert result.bytes == len(body)


# -- positions are in the recorded body, not in the recording file ---------------------------


@pytest.mark.parametrize("size", [1, 7, 37, 4096])
def test_diagnostic_positions_refer_to_the_recorded_body(tmp_path: Path, size: int) -> None:
    rec = tmp_path / "t001.jsonl"
    write_recording(rec, _split(T001_BODY, size), response=Response(200, "OK", "", SSE_HEADERS))
    result = check_file(rec)
    raw = check_bytes(T001_BODY)
    assert result.codes == {"T001"}
    assert result.findings == raw.findings
    d = result.findings[0]
    # the offset is a byte offset of the body, at the start of the line that holds the frame
    assert T001_BODY[d.offset :].startswith(b"data: ")
    assert T001_BODY[: d.offset].count(b"\n") + 1 == d.line
    assert b'"tool_calls"' in T001_BODY[d.offset :].split(b"\n", 1)[0]
    # ... and not a position in the recording file, whose line d.line is a read line
    file_lines = rec.read_bytes().splitlines()
    assert len(file_lines) > d.line


def test_positions_in_cli_output_for_a_recording(workdir: Path) -> None:
    rec = workdir / "t001.jsonl"
    write_recording(rec, _split(T001_BODY, 5), response=Response(200, "OK", "", SSE_HEADERS))
    d = check_bytes(T001_BODY).findings[0]
    code, doc = _json_report(rec)
    assert code == 1
    files = doc["files"]
    assert isinstance(files, list)
    (diag,) = files[0]["findings"]
    assert (diag["line"], diag["offset"], diag["frame"]) == (d.line, d.offset, d.frame)

    text = run_cli("check", rec.name, cwd=workdir)
    # path#body:line: the line (and the byte offset given after it) count in the recorded body
    assert text.out.startswith(f"t001.jsonl#body:{d.line}: T001 "), text.out
    assert f"byte {d.offset}" in text.out

    gh = run_cli("check", "--format", "github", rec.name, cwd=workdir)
    (annotation,) = [ln for ln in gh.out.splitlines() if ln.startswith("::error")]
    # GitHub would put a line= annotation on the recording file's line: it must be left out
    assert ",line=" not in annotation
    assert f"body line {d.line}, frame {d.frame}, byte {d.offset}" in annotation


def test_h_diagnostics_have_no_body_position(tmp_path: Path) -> None:
    rec = tmp_path / "h001.jsonl"
    write_recording(rec, [(0.05, ERROR_BODY)], response=Response(503, "", "", []))
    (d,) = check_file(rec).findings
    assert (d.code, d.frame, d.line, d.offset) == ("H001", None, 0, 0)


# -- damaged recordings: what is intact is checked (H004); a bad header is unusable input ------


def test_damaged_line_is_h004_and_the_intact_part_is_checked(workdir: Path) -> None:
    lines = _record(workdir / "rec.jsonl", GOOD_BODY).read_bytes().splitlines(keepends=True)
    lines[4] = b'{"t": 0.1, "text": "no closing quote}\n'
    rec = workdir / "corrupt.jsonl"
    rec.write_bytes(b"".join(lines))
    result = check_file(rec)
    h004 = [d for d in result.findings if d.code == "H004"]
    assert len(h004) == 1 and "H003" not in result.codes
    msg = h004[0].message
    assert "damaged recording at line 5 (not a JSON line" in msg
    assert f"the {len(lines) - 5} line(s) after it are not read" in msg
    intact = b"".join(json.loads(line)["text"].encode() for line in lines[2:4] if b'"text"' in line)
    assert f"the {len(intact)} body bytes before it were checked" in msg
    assert h004[0].offset == len(intact)
    run = run_cli("check", rec.name, cwd=workdir)
    assert run.code == 1  # findings, not unusable input
    assert "H004" in run.out and "Traceback" not in run.both


def test_bad_version_is_an_input_error(workdir: Path) -> None:
    lines = _record(workdir / "rec.jsonl", GOOD_BODY).read_bytes().splitlines(keepends=True)
    lines[0] = lines[0].replace(b'"version": 1', b'"version": 99')
    rec = workdir / "v99.jsonl"
    rec.write_bytes(b"".join(lines))
    run = run_cli("check", rec.name, cwd=workdir)
    assert run.code == 2
    assert "v99.jsonl: line 1: unsupported recording version 99" in run.err


def test_deeply_nested_recording_line_is_h004(workdir: Path) -> None:
    lines = _record(workdir / "rec.jsonl", GOOD_BODY).read_bytes().splitlines(keepends=True)
    lines[3] = b"[" * 100_000 + b"]" * 100_000 + b"\n"
    rec = workdir / "deep.jsonl"
    rec.write_bytes(b"".join(lines))
    run = run_cli("check", rec.name, cwd=workdir)
    assert "internal error" not in run.err
    assert run.code == 1
    assert "H004" in run.out
    assert "damaged recording at line 4 (a line is nested too deeply)" in run.out


def test_bad_response_headers_exit_2(workdir: Path) -> None:
    lines = _record(workdir / "rec.jsonl", GOOD_BODY).read_bytes().splitlines(keepends=True)
    lines[1] = b'{"response": {"status": 200, "headers": 5}}\n'
    rec = workdir / "headers.jsonl"
    rec.write_bytes(b"".join(lines))
    run = run_cli("check", rec.name, cwd=workdir)
    assert "internal error" not in run.err
    assert run.code == 2
    assert "headers.jsonl: line 2" in run.err
