"""``record`` as a library call: the request a command sends, the options, and what is kept.

The command line only parses its options and calls these; the messages they raise are the
ones ``sseconform record`` prints (exit 2), before any file is made or any request sent.
"""

from __future__ import annotations

import io
import socket
import sys
from pathlib import Path

import pytest

from sseconform.record import (
    Outcome,
    Progress,
    RecordOptions,
    Refused,
    key_values,
    make_request,
    parse_header,
    read_body,
    run_record,
)


def test_a_header_is_a_token_and_a_printable_value() -> None:
    assert parse_header("  X-Thing :  a b  ") == ("X-Thing", "a b")
    with pytest.raises(Refused, match=r"bad header 'No Token: x': use 'Name: value'"):
        parse_header("No Token: x")
    with pytest.raises(Refused, match="bad header 'colonless'"):
        parse_header("colonless")
    for value in ("caf\u00e9", "a\x01b"):
        with pytest.raises(Refused, match="its value must be printable ASCII"):
            parse_header(f"X: {value}")


def test_the_keys_among_the_headers() -> None:
    headers = [("Authorization", "Bearer k1"), ("x-api-key", "k2"), ("accept", "*/*")]
    assert key_values(headers) == ["Bearer k1", "k2"]


def test_data_is_text_a_file_or_stdin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert read_body('{"a": 1}') == b'{"a": 1}'
    body = tmp_path / "body.json"
    body.write_bytes(b"\x00bytes")
    assert read_body(f"@{body}") == b"\x00bytes"
    with pytest.raises(Refused, match=r"missing\.json: No such file or directory"):
        read_body(f"@{tmp_path / 'missing.json'}")

    class Stdin:
        buffer = io.BytesIO(b"from stdin")

    monkeypatch.setattr(sys, "stdin", Stdin())
    assert read_body("@-") == b"from stdin"


def test_the_request_checked_and_completed() -> None:
    req = make_request(None, "http://127.0.0.1:9/x", [], b"{}")
    assert (req.method, req.headers) == ("POST", [("content-type", "application/json")])
    given = [("Content-Type", "text/plain")]
    req = make_request("put", "http://127.0.0.1:9/x", given, b"a=b")
    assert (req.method, req.headers) == ("PUT", [("Content-Type", "text/plain")])
    assert given == [("Content-Type", "text/plain")]  # the caller's list is not changed
    assert make_request(None, "https://example.com/", [], None).method == "GET"
    with pytest.raises(Refused, match=r"give a URL, or --provider"):
        make_request(None, None, [], None)
    with pytest.raises(Refused, match="is not an http"):
        make_request(None, "ftp://x/", [], None)
    with pytest.raises(Refused, match="port 70000 is not from 1 to 65535"):
        make_request(None, "http://127.0.0.1:70000/", [], None)


def test_nothing_is_overwritten_unless_asked(tmp_path: Path) -> None:
    out, raw = tmp_path / "out.jsonl", tmp_path / "raw.txt"
    RecordOptions(str(out), raw=str(raw)).refuse_overwrite()
    raw.write_text("mine")
    with pytest.raises(Refused, match=r"raw\.txt: exists \(use --force to replace it\)"):
        RecordOptions(str(out), raw=str(raw)).refuse_overwrite()
    RecordOptions(str(out), raw=str(raw), force=True).refuse_overwrite()
    same = str(tmp_path / "sub" / ".." / "out.jsonl")
    with pytest.raises(Refused, match="--raw and --output name the same file; give two"):
        RecordOptions(str(out), raw=same).refuse_overwrite()


def _outcome(status: int | None, complete: bool, reason: str) -> Outcome:
    return Outcome("x.jsonl", Progress(status=status), complete, reason, [])


def test_what_an_outcome_says() -> None:
    assert _outcome(200, True, "eof").ok
    assert not _outcome(404, True, "eof").ok
    assert not _outcome(200, False, "stalled: no byte for 1 s").ok
    refused = _outcome(None, False, "could not connect: refused")
    assert refused.nothing_recorded and not refused.interrupted
    stopped = _outcome(None, False, "interrupted (SIGINT)")
    assert stopped.interrupted and not stopped.nothing_recorded
    assert not _outcome(None, False, "terminated (SIGTERM)").interrupted


def test_no_file_is_left_when_nothing_answered(tmp_path: Path) -> None:
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out, raw = tmp_path / "out.jsonl", tmp_path / "raw.txt"
    options = RecordOptions(str(out), raw=str(raw), connect_timeout=5.0)
    outcome = run_record(make_request(None, f"http://127.0.0.1:{port}/", [], None), options)
    assert outcome.nothing_recorded and outcome.reason.startswith("could not connect")
    assert not out.exists() and not raw.exists()
