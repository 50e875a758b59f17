"""Gemini's non-streaming answer (``:generateContent``): what google-genai's
``models.generate_content`` makes of each case's body, served on 127.0.0.1. This is where
V022's "Which clients break" comes from: a malformed body raises or loses the answer, the
conforming one is read whole."""

from __future__ import annotations

import http.server
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from sseconform import check_bytes, check_file
from sseconform.recording.format import Response, write_recording
from sseconform.rules.base import Settings
from tests import forked
from tests.conftest import CASES

genai = pytest.importorskip("google.genai")
types = pytest.importorskip("google.genai.types")

HERE = CASES / "gemini"
WHOLE = sorted(
    p for p in HERE.glob("*/*") if (p / "settings.json").is_file() and "whole" in
    (p / "settings.json").read_text()
)  # fmt: skip


class _Body(http.server.BaseHTTPRequestHandler):
    body = b""

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "application/json; charset=UTF-8")
        self.send_header("content-length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[http.server.ThreadingHTTPServer]:
    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Body)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _read(server: http.server.ThreadingHTTPServer, body: bytes) -> str | None:
    """The answer's text as google-genai reads it (None: no answer in the response)."""
    _Body.body = body
    client = genai.Client(
        api_key="sseconform-test",
        http_options=types.HttpOptions(
            base_url=f"http://127.0.0.1:{server.server_port}",
            retry_options=types.HttpRetryOptions(attempts=1),
        ),
    )
    try:
        text: str | None = client.models.generate_content(model="gemini-test", contents="hi").text
        return text
    finally:
        client.close()


def test_there_are_non_streaming_cases() -> None:
    assert any(p.parent.name == "pass" for p in WHOLE)
    assert len([p for p in WHOLE if p.name.startswith("V022-")]) >= 3


@pytest.mark.parametrize("case", WHOLE, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_google_genai_reads_a_conforming_body_and_fails_on_a_v022_one(
    case: Path, server: http.server.ThreadingHTTPServer
) -> None:
    body = (case / "stream.sse").read_bytes()
    if case.parent.name == "pass":
        assert _read(server, body) == "The answer is {42}."
        return
    try:
        text = _read(server, body)
    except ValueError:  # JSONDecodeError: the body is no JSON value
        return
    assert not text, f"google-genai read {text!r} from a malformed body"


def test_an_empty_body_loses_the_answer_without_an_error(
    server: http.server.ThreadingHTTPServer,
) -> None:
    """Neither an empty body nor an array raises: the answer is gone with no error, which
    is why V022 is an error and not a warning."""
    assert _read(server, b"") is None
    assert _read(server, (HERE / "pass" / "non-streaming-answer" / "stream.sse").read_bytes()
                 .join([b"[", b"]"])) is None  # fmt: skip


# -- told, never guessed -----------------------------------------------------------------------

ANSWER = HERE / "pass" / "non-streaming-answer" / "stream.sse"


@pytest.mark.parametrize(
    ("path", "codes"),
    [
        ("/v1beta/models/gemini-test:generateContent", set()),
        ("/v1beta/models/gemini-test:streamGenerateContent?alt=sse", {"W007", "W018", "H002"}),
    ],
)
def test_a_recording_of_a_non_streaming_call_says_so_in_its_url(
    tmp_path: Path, path: str, codes: set[str]
) -> None:
    """The same one-object body: a whole answer where the URL asked ``:generateContent``
    (JSON, no H002), no event stream where it asked for one."""
    rec = tmp_path / "answer.jsonl"
    head = Response(200, "OK", headers=[("content-type", "application/json")], t=0.01)
    request = {"url": "http://127.0.0.1:9" + path}
    write_recording(rec, [(0.02, ANSWER.read_bytes())], response=head, request=request)
    assert check_file(rec, grammar="gemini").codes == codes
    assert check_file(rec, grammar="auto").codes == codes


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"null", "'n': a byte where the body's JSON object should begin"),
        (b"", "the body holds no JSON object"),
        (b'{"candidates": []}\n{}', "'{': a byte after the body's JSON object"),
    ],
)
def test_one_finding_says_what_the_body_is_not(body: bytes, message: str) -> None:
    found = [d for d in check_bytes(body, Settings(whole=True), grammar="gemini").findings
             if d.code == "V022"]  # fmt: skip
    assert [d.message for d in found] == [message]


def test_an_object_over_the_event_limit_says_so() -> None:
    body = b'{"candidates":[{"content":{"parts":[{"text":"' + b"x" * 2000 + b'"}]}}]}'
    found = check_bytes(body, Settings(whole=True, max_event=1024), grammar="gemini")
    [v022] = [d for d in found.findings if d.code == "V022"]
    assert v022.message == "the body's JSON object is over 1024 bytes"


def test_a_bare_object_is_no_stream_unless_told() -> None:
    body = ANSWER.read_bytes()
    assert check_bytes(body, grammar="gemini").codes == {"W007", "W018"}
    assert check_bytes(body, Settings(whole=True), grammar="gemini").codes == set()


def test_cli_non_streaming() -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "sseconform", "check", *args]
        return forked.completed(cmd, text=True)

    ok = run("-g", "gemini", "--non-streaming", str(ANSWER))
    assert ok.returncode == 0, ok.stdout + ok.stderr
    cut = run(
        "-g", "gemini", "--non-streaming", str(HERE / "fail" / "V022-object-cut" / "stream.sse")
    )
    assert cut.returncode == 1 and "V022" in cut.stdout
    wrong = run("-g", "chat", "--non-streaming", str(ANSWER))
    assert wrong.returncode == 2 and "--grammar gemini" in wrong.stderr
    assert "Traceback" not in wrong.stderr
