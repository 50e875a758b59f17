"""Replay never prints a request's credentials: not in its log, not in the Served records the
gate reads, not in the error messages it answers with (a gateway may pass those on).

Keys ride in the query (``?key=`` as Gemini takes it, ``api_key``, a percent-encoded name), in
a URL's password, and in the auth headers (Authorization, x-api-key, x-goog-api-key); a key
also shows up where no name marks it (the path, an odd query parameter, a fault header) and is
scrubbed there by its value. Every secret contains ``sk-test-SECRET``, which the session greps
for in every captured output too.
"""

from __future__ import annotations

import json
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict

import pytest

from sseconform.replay.server import ReplayServer
from tests.cli.helpers import cli_env
from tests.conftest import SECRET_MARK
from tests.replay.conftest import (
    ANTHROPIC_TEXT,
    GEMINI,
    HOST,
    RECORDINGS_DIR,
    TEXT,
    serving,
)

GEMINI_PATH = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"


def _secret(n: int) -> str:
    return f"{SECRET_MARK}-{n:02d}-AIzaXyZ"


# (request target, extra headers, expected status, what the log must show instead)
REQUESTS: list[tuple[str, dict[str, str], int, str]] = [
    (f"{GEMINI_PATH}?key={_secret(1)}&alt=sse", {}, 200, "?key=[REDACTED]&alt=sse"),
    (f"{GEMINI_PATH}?alt=sse&KEY={_secret(2)}", {}, 200, "KEY=[REDACTED]"),
    (f"{GEMINI_PATH}?k%65y={_secret(3)}", {}, 200, "k%65y=[REDACTED]"),
    (f"/nope?api_key={_secret(4)}&token={_secret(5)}", {}, 404, "api_key=[REDACTED]"),
    ("/v1/chat/completions", {"authorization": f"Bearer {_secret(6)}"}, 200, ""),
    (f"/p/{_secret(7)}/v1/chat/completions", {"authorization": f"Bearer {_secret(7)}"}, 200,
     "/p/[REDACTED]/v1"),
    ("/v1/messages", {"x-api-key": _secret(8)}, 200, ""),
    (f"{GEMINI_PATH}?alt=sse&q={_secret(9)}", {"x-goog-api-key": _secret(9)}, 200,
     "q=[REDACTED]"),
    (f"/unknown?x={_secret(10)}", {"x-goog-api-key": _secret(10)}, 404, "x=[REDACTED]"),
    (f"http://user:{_secret(11)}@127.0.0.1/v1/chat/completions", {}, 200,
     "http://user:[REDACTED]@127.0.0.1/"),
    ("/v1/chat/completions", {"authorization": f"Bearer {_secret(12)}",
                              "x-sseconform-fault": f"bogus-{_secret(12)}"}, 400,
     "faults=bogus-[REDACTED] fired=none"),
]  # fmt: skip


def _raw(port: int, target: str, headers: dict[str, str]) -> bytes:
    head = f"POST {target} HTTP/1.1\r\nhost: {HOST}\r\ncontent-length: 0\r\nconnection: close\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    with socket.create_connection((HOST, port), timeout=5) as s:
        s.sendall(head.encode() + b"\r\n")
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


@pytest.fixture(scope="module")
def answered() -> Iterator[tuple[list[bytes], list[str], ReplayServer]]:
    lines: list[str] = []
    with serving([TEXT, ANTHROPIC_TEXT, GEMINI], log=lines.append, measure=True) as server:
        answers = [_raw(server.port, target, headers) for target, headers, _, _ in REQUESTS]
        deadline = time.monotonic() + 2
        while len(lines) < len(REQUESTS) and time.monotonic() < deadline:
            time.sleep(0.01)
        yield answers, lines, server


def test_nothing_replay_logs_or_records_holds_a_key(
    answered: tuple[list[bytes], list[str], ReplayServer],
) -> None:
    _, lines, server = answered
    assert len(lines) == len(REQUESTS) == len(server.served)
    for line in lines:
        assert SECRET_MARK not in line, line
    for served in server.served:
        # every field, the plan's bytes included (what the HTML report's timeline reads)
        text = json.dumps(asdict(served), default=lambda b: bytes(b).decode("latin-1"))
        assert SECRET_MARK not in text, served
    by_path = dict(zip([r[0] for r in REQUESTS], lines, strict=True))
    for target, _, _, shown in REQUESTS:
        assert shown in by_path[target], (shown, by_path[target])


def test_nothing_replay_answers_about_a_request_holds_its_key(
    answered: tuple[list[bytes], list[str], ReplayServer],
) -> None:
    """The 404's "no recording for ..." and the 400's fault message name the request: with
    its keys redacted (a gateway may pass the message on to its own client)."""
    answers, _, _ = answered
    for (target, _, status, _), raw in zip(REQUESTS, answers, strict=True):
        assert raw.startswith(f"HTTP/1.1 {status} ".encode()), (target, raw[:80])
        assert SECRET_MARK.encode() not in raw, target
    not_found = json.loads(answers[3].partition(b"\r\n\r\n")[2])["error"]["message"]
    assert not_found.startswith("no recording for POST /nope?api_key=[REDACTED]&token=[REDACTED]")
    bad_fault = json.loads(answers[-1].partition(b"\r\n\r\n")[2])["error"]["message"]
    assert bad_fault.startswith("unknown fault 'bogus-[REDACTED]'")


def test_the_cli_prints_no_key() -> None:
    """The command line, end to end: what ``sseconform replay`` writes to its terminal."""
    main = (
        "import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
        "sys.argv[0] = 'sseconform'; runpy.run_module('sseconform', run_name='__main__')"
    )
    files = [
        str(RECORDINGS_DIR / "gemini" / GEMINI),
        str(RECORDINGS_DIR / "chat" / TEXT),
        str(RECORDINGS_DIR / "anthropic" / ANTHROPIC_TEXT),
    ]
    proc = subprocess.Popen(
        [sys.executable, "-c", main, "replay", *files, "--port", "0", "--speed", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=cli_env(),
    )
    try:
        assert proc.stdout is not None
        m = re.search(r"on http://[\d.]+:(\d+)", proc.stdout.readline())
        assert m
        port = int(m.group(1))
        for target, headers, status, _ in REQUESTS:
            assert _raw(port, target, headers).startswith(f"HTTP/1.1 {status} ".encode())
        time.sleep(0.2)  # the log lines out
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    assert proc.returncode == 0
    assert SECRET_MARK not in out + err
    assert err.count("[REDACTED]") >= 10 and "Traceback" not in err


def test_google_genai_reads_the_sse_path_and_its_key_is_not_logged() -> None:
    """google-genai always asks for ``alt=sse``: it gets the recording as SSE, and the key it
    sends in x-goog-api-key appears nowhere."""
    from google import genai
    from google.genai import types

    lines: list[str] = []
    with serving([GEMINI], log=lines.append) as server:
        with genai.Client(
            api_key=_secret(20), http_options=types.HttpOptions(base_url=server.url)
        ) as gclient:
            text = "".join(
                chunk.text or ""
                for chunk in gclient.models.generate_content_stream(
                    model="gemini-2.5-flash", contents="hi"
                )
            )
        deadline = time.monotonic() + 2
        while not lines and time.monotonic() < deadline:
            time.sleep(0.01)
    assert text.startswith("Server-Sent Events are a one-way stream")
    assert len(lines) == 1 and "?alt=sse -> gemini-text.jsonl 200" in lines[0]
    assert SECRET_MARK not in lines[0]
