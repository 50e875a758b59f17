"""Malformed recordings: every reader gives a one-line error naming the line (exit 2), or
reads what is intact and reports the damage as a finding; never a traceback, exit 3 or hang.

Each case is a recording with one bad line, built from a good one; each command that reads
recordings (check, translate, inspect, replay) gets every case.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli

HEADER = {
    "format": "sseconform-recording",
    "version": 1,
    "request": {"url": "/v1/chat/completions"},
}
CHUNK = (
    'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
    '"choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}\n\n'
)
RESPONSE = {
    "response": {
        "status": 200,
        "reason": "OK",
        "http_version": "HTTP/1.1",
        "headers": [["content-type", "text/event-stream"]],
    }
}


def _lines(response: object = RESPONSE, read: str | None = None) -> list[str]:
    good_read = json.dumps({"t": 0.01, "text": CHUNK})
    return [
        json.dumps(HEADER),
        json.dumps(response),
        read if read is not None else good_read,
        json.dumps({"end": {"complete": True, "reason": "eof", "t": 0.02}}),
    ]


def _head(**change: object) -> dict[str, object]:
    return {"response": {**RESPONSE["response"], **change}}


#: name -> (lines, the line that is bad, what the message says)
CASES: dict[str, tuple[list[str], int, str]] = {
    "lone-surrogate": (_lines(read='{"t": 0.01, "text": "data: \\ud800\\n\\n"}'), 3, "surrogate"),
    "t-nan": (_lines(read='{"t": NaN, "text": "data: x\\n\\n"}'), 3, "NaN"),
    "t-huge": (_lines(read='{"t": 1e308, "text": "data: x\\n\\n"}'), 3, '"t"'),
    "t-negative": (_lines(read='{"t": -1, "text": "data: x\\n\\n"}'), 3, '"t"'),
    "status-huge": (_lines(_head(status=2**70)), 2, "status"),
    "status-negative": (_lines(_head(status=-5)), 2, "from 100 to 599"),
    "crlf-in-reason": (_lines(_head(reason="OK\r\nX-Injected: yes")), 2, "reason phrase"),
    "crlf-in-header": (
        _lines(_head(headers=[["x-a", "1\r\nX-Injected: yes"]])),
        2,
        "CR, LF or NUL",
    ),
    "bad-header-name": (_lines(_head(headers=[["x a:", "1"]])), 2, "token"),
}


def _write(tmp_path: Path, name: str) -> Path:
    lines, _, _ = CASES[name]
    path = tmp_path / f"{name}.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _says_where(text: str, path: Path, line: int, what: str) -> None:
    assert f"line {line}" in text or f"{path.name}:{line}" in text, text
    assert what in text, text


@pytest.mark.parametrize("name", sorted(CASES))
def test_check_names_the_bad_line(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, name)
    _, line, what = CASES[name]
    r = run_cli("check", path, "--format", "text", cwd=tmp_path)
    # a bad head: the file cannot be read (exit 2); a bad read: what was intact is
    # checked and the damage is a finding (H004, exit 1)
    assert r.code in (1, 2), r.both
    _says_where(r.both, path, line, what)
    if r.code == 1:
        assert "H004" in r.both


@pytest.mark.parametrize("name", sorted(CASES))
def test_translate_refuses_with_the_line(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, name)
    _, line, what = CASES[name]
    out = tmp_path / "out.jsonl"
    r = run_cli("translate", path, "--to", "anthropic", "-o", out, cwd=tmp_path)
    assert r.code == 2, r.both
    _says_where(r.err, path, line, what)
    if out.exists():  # never NaN or anything that is not JSON
        for raw in out.read_text().splitlines():
            json.loads(raw, parse_constant=lambda c: pytest.fail(f"{c} written"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_inspect_refuses_with_the_line(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, name)
    _, line, what = CASES[name]
    r = run_cli("inspect", path, "--no-live", cwd=tmp_path, timeout=30)
    assert r.code == 2, r.both
    _says_where(r.err, path, line, what)


@pytest.mark.parametrize("name", sorted(CASES))
def test_replay_refuses_to_serve_it(tmp_path: Path, name: str) -> None:
    path = _write(tmp_path, name)
    _, line, what = CASES[name]
    r = run_cli("replay", path, "--port", "0", cwd=tmp_path, timeout=30)
    assert r.code == 2, r.both
    _says_where(r.err, path, line, what)


def test_a_line_over_the_limit_is_refused_not_read_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sseconform.recording import format as fmt

    monkeypatch.setattr(fmt, "MAX_LINE", 1000)
    path = tmp_path / "long.jsonl"
    long_read = json.dumps({"t": 0.01, "text": "data: " + "x" * 5000 + "\n\n"})
    path.write_text("\n".join(_lines(read=long_read)) + "\n", encoding="utf-8")
    with open(path, "rb") as fp, pytest.raises(fmt.RecordingError) as exc:
        list(fmt.RecordingReader(fp, str(path)).reads())
    assert exc.value.line == 3
    assert "longer than" in exc.value.message


def test_prepend_keeps_a_size_limit() -> None:
    import io

    from sseconform.recording.format import Prepend

    p = Prepend(b"abc", io.BytesIO(b"defgh\nij\n"))
    assert p.readline(5) == b"abcde"
    assert p.readline(100) == b"fgh\n"
    assert p.readline() == b"ij\n"
    p = Prepend(b"ab\ncd", io.BytesIO(b"ef\n"))
    assert p.readline(2) == b"ab"
    assert p.readline() == b"\n"
    assert p.readline() == b"cdef\n"
