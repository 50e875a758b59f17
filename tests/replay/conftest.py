"""Shared pieces for the replay tests: the bundled recordings, servers on 127.0.0.1, readers.

Every server here binds 127.0.0.1 on a port the OS picks; nothing is sent anywhere else.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from sseconform.replay.plan import Loaded, event_ends, load
from sseconform.replay.routing import FAULT_HEADER, SELECT_HEADER
from sseconform.replay.server import ReplayServer
from tests.conftest import ROOT

HOST = "127.0.0.1"
RECORDINGS_DIR = ROOT / "recordings"
RECORDING_FILES: list[Path] = sorted(RECORDINGS_DIR.glob("*/*.jsonl"))
LOADED: dict[str, Loaded] = {p.name: load(str(p)) for p in RECORDING_FILES}

# The recordings the tests lean on (the first three ship with the project; the rest are
# written by make_recordings.py).
TEXT = "text-usage.jsonl"  # openai chat, gpt-4o-mini
TOOLS = "parallel-tool-calls.jsonl"  # openai chat, gpt-4o-mini
GATEWAY = "anthropic-tool-call.jsonl"  # openai chat (a buggy gateway), claude-sonnet
ANTHROPIC_TOOL = "messages-tool-use.jsonl"  # anthropic, claude-sonnet-4-6
ANTHROPIC_TEXT = "messages-text.jsonl"  # anthropic, claude-haiku-4-5
RESPONSES = "responses-text.jsonl"  # responses, gpt-4.1-mini
GEMINI = "gemini-text.jsonl"  # gemini, gemini-2.5-flash, CRLF framing

PATHS = {
    "openai": "/v1/chat/completions",
    "anthropic": "/v1/messages",
    "responses": "/v1/responses",
    "gemini": "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
}


#: What a streaming client asks for: without it, replay answers as the provider does, once,
#: with the whole answer as JSON (see replay.whole).
STREAM: dict[str, Any] = {"stream": True}


def rec(name: str) -> Loaded:
    return LOADED[name]


def path_for(name: str) -> str:
    dialect = rec(name).dialect
    assert dialect is not None, name
    return PATHS[dialect]


def body_through(name: str, n: int) -> bytes:
    """The recorded body up to the end of event ``n`` (1-based)."""
    body = rec(name).body
    return body[: event_ends(body)[n - 1]]


@pytest.fixture(autouse=True)
def _no_proxy(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback traffic must never go through a proxy from the environment."""
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")


@contextmanager
def serving(names: list[str] | None = None, **kwargs: Any) -> Iterator[ReplayServer]:
    """A ReplayServer on 127.0.0.1:0 in a background thread (speed 0 unless given)."""
    kwargs.setdefault("speed", 0)
    recs = [LOADED[n] for n in (names or list(LOADED))]
    server = ReplayServer(recs, host=HOST, port=0, **kwargs)
    with server.running():
        assert server.url.startswith(f"http://{HOST}:")
        yield server


@pytest.fixture(scope="module")
def shared_server() -> Iterator[ReplayServer]:
    """One server with every recording at speed 0, for tests that pin what they ask for."""
    with serving() as server:
        yield server


def client(**kwargs: Any) -> httpx.Client:
    kwargs.setdefault("timeout", 10.0)
    return httpx.Client(trust_env=False, **kwargs)


def headers_for(name: str | None = None, fault: str | None = None) -> dict[str, str]:
    out = {}
    if name is not None:
        out[SELECT_HEADER] = name
    if fault is not None:
        out[FAULT_HEADER] = fault
    return out


def fetch_raw(
    http: httpx.Client, url: str, *, body: Any = None, headers: dict[str, str] | None = None
) -> tuple[int, bytes, BaseException | None]:
    """POST, read the raw body piece by piece; a transport error ends the read and is returned."""
    got = bytearray()
    with http.stream("POST", url, json=body if body is not None else STREAM, headers=headers) as r:
        try:
            for piece in r.iter_raw():
                got += piece
        except httpx.TransportError as exc:
            return r.status_code, bytes(got), exc
        return r.status_code, bytes(got), None


def timed_pieces(
    http: httpx.Client, url: str, headers: dict[str, str]
) -> tuple[float, list[tuple[float, bytes]]]:
    """(seconds to the response head, [(seconds since the request, piece)]) for one POST."""
    t0 = time.monotonic()
    pieces = []
    with http.stream("POST", url, json=STREAM, headers=headers) as r:
        head = time.monotonic() - t0
        for piece in r.iter_raw():
            pieces.append((time.monotonic() - t0, piece))
    return head, pieces


def raw_exchange(port: int, data: bytes, *, timeout: float = 5.0) -> bytes:
    """Send bytes on a fresh TCP connection to 127.0.0.1 and read until the server closes.

    A reset by the server ends the read too (marked ``<RESET>``): a clean refusal either way.
    """
    with socket.create_connection((HOST, port), timeout=timeout) as s:
        try:
            s.sendall(data)
        except ConnectionError:
            return b"<RESET>"
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                return out + b"<RESET>"
            if not chunk:
                return out
            out += chunk
