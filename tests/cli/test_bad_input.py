"""Hostile and broken input: exit 2 or diagnostics, never a traceback, never an internal error.

``run_cli`` fails any run whose standard output or error holds "Traceback".
"""

from __future__ import annotations

import json
import random
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sseconform.recording.format import MAGIC
from tests.cli.helpers import Run, run_cli
from tests.conftest import CASES

PASS = CASES / "pass" / "plain-text" / "stream.sse"
CHUNK = (
    b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
    b'"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]%s}'
    b"\n\n"
)
FINISH = (
    b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
    b'"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
)


def _check_json(path: Path, cwd: Path, *extra: str) -> tuple[Run, set[str]]:
    run = run_cli("check", "-f", "json", *extra, path.name, cwd=cwd)
    assert "internal error" not in run.err
    doc = json.loads(run.out)
    return run, {d["code"] for f in doc["files"] for d in f["findings"]}


def _no_crash(run: Run) -> None:
    assert "internal error" not in run.both
    assert run.code in (0, 1, 2)


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 12345])
def test_binary_garbage(workdir: Path, seed: int) -> None:
    rng = random.Random(seed)
    path = workdir / "garbage.sse"
    path.write_bytes(rng.randbytes(rng.randrange(1, 300_000)))
    run, codes = _check_json(path, workdir)
    assert run.code == 1
    assert codes  # something was said about it
    for fmt in ("text", "junit", "github"):
        _no_crash(run_cli("check", "-f", fmt, path.name, cwd=workdir))


@pytest.mark.parametrize("seed", [0, 7])
def test_garbage_after_a_recording_header(workdir: Path, seed: int) -> None:
    """Sniffed as a recording, then unreadable: a clean exit 2 naming the file and line."""
    rng = random.Random(seed)
    path = workdir / "rec.jsonl"
    header = MAGIC + b', "version": 1}\n'
    path.write_bytes(header + rng.randbytes(50_000) + b"\n")
    run = run_cli("check", path.name, cwd=workdir)
    _no_crash(run)
    assert run.code == 2
    assert "rec.jsonl: line " in run.err


def test_garbage_with_nul_bytes_and_control_characters(workdir: Path) -> None:
    path = workdir / "ctl.sse"
    path.write_bytes(bytes(range(32)) * 100 + b"data: \x00\x00\n\n")
    run, codes = _check_json(path, workdir)
    assert run.code == 1
    assert codes


def test_invalid_utf8(workdir: Path) -> None:
    path = workdir / "latin1.sse"
    path.write_bytes(CHUNK % b"" + FINISH.replace(b'"m"', b'"m\xe9\xff"', 1))
    run, codes = _check_json(path, workdir)
    assert run.code == 1
    assert "W001" in codes
    text = run_cli("check", path.name, cwd=workdir)
    assert " W001 error invalid-utf8: bytes that are not UTF-8 (e9)" in text.out


def test_invalid_utf8_everywhere(workdir: Path) -> None:
    path = workdir / "bad.sse"
    path.write_bytes(b"\xff\xfe\xfd\n" * 1000 + b"data: \xc3\x28\n\n" + b"\x80" * 10_000)
    run, codes = _check_json(path, workdir)
    assert run.code == 1
    assert "W001" in codes


def test_fifty_megabyte_line_without_newline(workdir: Path) -> None:
    path = workdir / "huge.sse"
    block = b"x" * (1024 * 1024)
    with open(path, "wb") as fp:
        fp.write(b'data: {"id":"')
        for _ in range(50):
            fp.write(block)
    assert path.stat().st_size > 50 * 1024 * 1024
    start = time.monotonic()
    run, codes = _check_json(path, workdir)
    elapsed = time.monotonic() - start
    assert run.code == 1
    assert codes & {"W011", "W017"}
    assert elapsed < 60, f"checking a 50 MB line took {elapsed:.1f} s"
    doc = json.loads(run.out)
    assert doc["files"][0]["bytes"] == path.stat().st_size


def test_fifty_megabyte_line_text_report_stays_short(workdir: Path) -> None:
    """The report quotes a bounded excerpt, not the 50 MB line."""
    path = workdir / "huge.sse"
    path.write_bytes(b"data: " + b"y" * (50 * 1024 * 1024))
    run = run_cli("check", path.name, cwd=workdir)
    assert run.code == 1
    assert len(run.out) < 10_000


@pytest.mark.parametrize(
    "nested",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
        b"[" * 100_000,  # not even closed
    ],
    ids=["array", "object", "unclosed"],
)
def test_json_nested_100000_deep(workdir: Path, nested: bytes) -> None:
    path = workdir / "deep.sse"
    path.write_bytes(b"data: " + nested + b"\n\n" + FINISH)
    run, codes = _check_json(path, workdir)
    assert run.code == 1
    assert "J001" in codes


def test_json_nested_deep_inside_a_chunk(workdir: Path) -> None:
    """Depth hidden under an unknown key of an otherwise good chunk."""
    deep = b', "extra": ' + b"[" * 100_000 + b"]" * 100_000
    path = workdir / "deep.sse"
    path.write_bytes(CHUNK % deep + FINISH)
    run, codes = _check_json(path, workdir)
    assert run.code == 1
    assert codes


def test_json_nested_deep_in_tool_arguments(workdir: Path) -> None:
    args = json.dumps("[" * 100_000 + "]" * 100_000).encode()
    call = (
        b'{"index":0,"id":"call_1","type":"function",'
        b'"function":{"name":"f","arguments":' + args + b"}}"
    )
    body = (
        b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
        b'"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":['
        + call
        + b']},"finish_reason":null}]}\n\n'
        + FINISH.replace(b'"stop"', b'"tool_calls"')
    )
    path = workdir / "deepargs.sse"
    path.write_bytes(body)
    run = run_cli("check", path.name, cwd=workdir)
    _no_crash(run)


def test_empty_file(workdir: Path) -> None:
    path = workdir / "empty.sse"
    path.write_bytes(b"")
    run, codes = _check_json(path, workdir)
    assert run.code == 1
    assert codes == {"E003"}


def test_only_blank_lines(workdir: Path) -> None:
    path = workdir / "blank.sse"
    path.write_bytes(b"\n" * 10_000)
    run, codes = _check_json(path, workdir)
    assert run.code == 1
    assert codes == {"W018"}  # not SSE: the one cause, no end-of-stream consequences


def test_missing_file(workdir: Path) -> None:
    run = run_cli("check", "does-not-exist.sse", cwd=workdir)
    assert run.code == 2
    assert "does-not-exist.sse: no such file" in run.err


def test_directory_without_stream_files(workdir: Path) -> None:
    d = workdir / "empty-dir"
    d.mkdir()
    run = run_cli("check", "empty-dir", cwd=workdir)
    assert run.code == 2
    assert "no stream files" in run.err
    (d / "README.md").write_text("# nothing\n")
    (d / "data.json").write_text("[1, 2]\n")
    run = run_cli("check", "empty-dir", cwd=workdir)
    assert run.code == 2
    assert "no stream files" in run.err


def test_unreadable_file(workdir: Path) -> None:
    path = workdir / "secret.sse"
    path.write_bytes(PASS.read_bytes())
    path.chmod(0)
    try:
        if _can_read(path):
            pytest.skip("running as a user who can read any file")
        run = run_cli("check", path.name, cwd=workdir)
        assert run.code == 2
        assert "permission denied" in run.err
    finally:
        path.chmod(0o644)


def _can_read(path: Path) -> bool:
    try:
        path.read_bytes()
    except PermissionError:
        return False
    return True


# -- stream content in the report ----------------------------------------------------------
#
# Messages and pointers quote text from the stream (field names, `id:` and `event:` values).
# A stream is untrusted input: what it carries must not be able to forge report lines,
# write terminal escape sequences, inject GitHub workflow commands, or break the XML.

HOSTILE_KEY = '"k\\u001b[2J\\nfake.sse:1:0: E999 error all-good\\n::error::injected"'
HOSTILE = (
    b"id: a\x1b[31mRED\x01\n: ping\x1b[0m\nevent: x\x1b]0;title\x07\n"
    + CHUNK % (b"," + HOSTILE_KEY.encode() + b":1")
    + FINISH
)


@pytest.fixture
def hostile(workdir: Path) -> Path:
    path = workdir / "hostile.sse"
    path.write_bytes(HOSTILE)
    return path


def test_hostile_stream_does_not_crash(hostile: Path) -> None:
    for fmt in ("text", "json", "junit", "github"):
        _no_crash(run_cli("check", "-f", fmt, hostile.name, cwd=hostile.parent))


def test_hostile_stream_json_report_is_valid(hostile: Path) -> None:
    _, codes = _check_json(hostile, hostile.parent)
    assert {"W008", "W013", "G010"} <= codes


def test_text_report_escapes_stream_content(hostile: Path) -> None:
    run = run_cli("check", hostile.name, cwd=hostile.parent)
    assert "\x1b" not in run.out
    assert "\x01" not in run.out
    assert "\x07" not in run.out
    lines = run.out.splitlines()
    starts = ("hostile.sse", "  help: sseconform rule ", "ok:", "FAILED:")
    assert all(ln.startswith(starts) for ln in lines), lines


def test_github_report_cannot_be_injected(hostile: Path) -> None:
    run = run_cli("check", "-f", "github", hostile.name, cwd=hostile.parent)
    lines = run.out.splitlines()
    assert all(ln.startswith("::") for ln in lines[:-1]), lines
    assert not any(ln.startswith("::error::injected") for ln in lines)


def test_junit_report_is_well_formed_xml(hostile: Path) -> None:
    run = run_cli("check", "-f", "junit", hostile.name, cwd=hostile.parent)
    ET.fromstring(run.out.encode())


def test_junit_report_of_garbage_is_well_formed(workdir: Path) -> None:
    """Random bytes, unlike the hostile stream above, only reach the report through repr()."""
    path = workdir / "garbage.sse"
    path.write_bytes(random.Random(99).randbytes(100_000))
    run = run_cli("check", "-f", "junit", path.name, cwd=workdir)
    root = ET.fromstring(run.out.encode())
    assert root.tag == "testsuites"
