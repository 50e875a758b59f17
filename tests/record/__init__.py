"""Helpers for the ``record`` tests: real servers on 127.0.0.1 and the real command line.

- :func:`replaying` runs ``sseconform replay``'s server (the bundled recordings) in a thread;
- :class:`Capture` is a tiny ``http.server`` that keeps every request it gets (headers and body)
  and answers with a fixed SSE body, to see what ``record`` really sent;
- :func:`sseconform` / :func:`spawn` run ``python -m sseconform`` in a subprocess.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from sseconform.recording.format import RecordingError, RecordingReader
from sseconform.replay.plan import Loaded, load
from sseconform.replay.server import ReplayServer
from tests import forked
from tests.cli.helpers import Run, popen_interruptible

ROOT = Path(__file__).resolve().parents[2]
RECORDINGS = sorted((ROOT / "recordings").glob("*/*.jsonl"))
TEXT = ROOT / "recordings" / "chat" / "text-usage.jsonl"
BUGS = ROOT / "recordings" / "gateway-bugs" / "anthropic-tool-call.jsonl"
HOST = "127.0.0.1"
CHAT = "/v1/chat/completions"
SELECT = "x-sseconform-recording"
FAULT = "x-sseconform-fault"
BODY = '{"model": "gpt-4o-mini", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'
KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")

#: What the capture server answers with: a small, conforming OpenAI stream.
SSE_BODY = (
    b'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",'
    b'"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}'
    b"\n\n"
    b'data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m",'
    b'"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n'
    b"data: [DONE]\n\n"
)


# -- the command line ---------------------------------------------------------------------------


def cli_env(**extra: str) -> dict[str, str]:
    """The environment without provider keys, proxies or debug switches, plus ``extra``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in KEY_VARS and k != "SSECONFORM_DEBUG" and "proxy" not in k.lower()
    }
    env.update(NO_COLOR="1", COLUMNS="100", NO_PROXY=f"{HOST},localhost")
    env.update(extra)
    return env


def workdir(tmp_path: Path) -> Path:
    """A current directory whose pyproject.toml has no [tool.sseconform]."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    return tmp_path


def command(*args: str | os.PathLike[str]) -> list[str]:
    return [sys.executable, "-m", "sseconform", *(os.fspath(a) for a in args)]


def sseconform(
    *args: str | os.PathLike[str],
    cwd: Path,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
    timeout: float = 30,
) -> Run:
    """Run ``python -m sseconform ARGS``; never lets a traceback through."""
    proc = forked.run(
        command(*args),
        cwd=cwd,
        env=env if env is not None else cli_env(),
        stdin=stdin,
        timeout=timeout,
    )
    run = Run(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )
    assert "Traceback" not in run.both, run.both[-3000:]
    return run


def spawn(
    *args: str | os.PathLike[str], cwd: Path, env: dict[str, str] | None = None
) -> subprocess.Popen[bytes]:
    """Start ``python -m sseconform ARGS`` with SIGINT deliverable (not inherited as ignored)."""
    return popen_interruptible(command(*args), cwd=cwd, env=env if env is not None else cli_env())


def finish(proc: subprocess.Popen[bytes], timeout: float = 20) -> Run:
    """Wait for a spawned run; kill it if it hangs. Asserts there is no traceback."""
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    run = Run(proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))
    assert "Traceback" not in run.both, run.both[-3000:]
    return run


def wait_for(pred: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


# -- recordings ---------------------------------------------------------------------------------


def read_recording(path: Path) -> tuple[RecordingReader, list[tuple[float, bytes]]]:
    """Load a recording the way every consumer does: the header, then all its reads."""
    with open(path, "rb") as fp:
        reader = RecordingReader(fp, str(path))
        reads = list(reader.reads())
    return reader, reads


def joined(reads: list[tuple[float, bytes]]) -> bytes:
    return b"".join(b for _, b in reads)


#: Seconds a read may be recorded off its schedule, relative to the first byte (CI: four
#: workers on two cores).
TOLERANCE = 0.050


def timing_errors(
    original: list[tuple[float, bytes]], recorded: list[tuple[float, bytes]]
) -> list[float]:
    """Per original read: when the read holding its first byte arrived, minus when it was
    recorded, both relative to the first byte (so connection latency does not count)."""
    ends: list[tuple[int, float]] = []
    pos = 0
    for t, data in recorded:
        pos += len(data)
        ends.append((pos, t))
    rec0, orig0 = recorded[0][0], original[0][0]
    errors = []
    start = 0
    for t, data in original:
        t_rec = next(tr for end, tr in ends if end > start)
        errors.append(round((t_rec - rec0) - (t - orig0), 4))
        start += len(data)
    return errors


def body_so_far(path: Path) -> bytes | None:
    """The body a recording being written holds now (None before its header line is whole)."""
    try:
        data = path.read_bytes()
        return joined(list(RecordingReader(io.BytesIO(data)).reads()))
    except (FileNotFoundError, RecordingError):
        return None


def header_line(path: Path) -> dict[str, Any]:
    with open(path, "rb") as fp:
        first: dict[str, Any] = json.loads(fp.readline())
    return first


def end_line(path: Path) -> dict[str, Any] | None:
    last = path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1]
    obj = json.loads(last)
    end: dict[str, Any] | None = obj.get("end")
    return end


@contextmanager
def replaying(*paths: Path, speed: float = 0.0) -> Iterator[tuple[ReplayServer, list[Loaded]]]:
    """``sseconform replay PATHS --speed SPEED`` on 127.0.0.1, for the duration of a block."""
    loaded = [load(str(p)) for p in paths or RECORDINGS]
    server = ReplayServer(loaded, host=HOST, port=0, speed=speed)
    with server.running():
        yield server, loaded


# -- a server that shows what it received -------------------------------------------------------


@dataclass
class Received:
    method: str
    path: str
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        values = [v for k, v in self.headers if k.lower() == name.lower()]
        assert len(values) <= 1, f"{name} sent {len(values)} times: {values}"
        return values[0] if values else None

    def json(self) -> Any:
        return json.loads(self.body)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    capture: Capture

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # each write goes out at once, as real servers send
    server: _HTTPServer

    def _answer(self) -> None:
        cap = self.server.capture
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        with cap.lock:
            cap.requests.append(Received(self.command, self.path, list(self.headers.items()), body))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        for k, v in cap.headers:
            self.send_header(k, v)
        self.send_header("content-length", str(len(cap.body)))
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(cap.body)
        self.wfile.flush()

    do_GET = do_POST = _answer

    def log_message(self, format: str, *args: Any) -> None:
        pass


class Capture:
    """Keeps each request (method, path, headers, body); answers 200 with ``body``."""

    def __init__(self, body: bytes = SSE_BODY, headers: list[tuple[str, str]] | None = None):
        self.body = body
        self.headers = headers or []
        self.requests: list[Received] = []
        self.lock = threading.Lock()
        self._httpd = _HTTPServer((HOST, 0), _Handler)
        self._httpd.capture = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self._httpd.server_address[1]}"

    @property
    def only(self) -> Received:
        assert len(self.requests) == 1, self.requests
        return self.requests[0]

    def __enter__(self) -> Capture:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)
