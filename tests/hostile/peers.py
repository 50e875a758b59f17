"""A hostile HTTP peer on 127.0.0.1: the gateway (or server being recorded) from the
hostile-peers issue, one behaviour per request path.

It speaks just enough HTTP/1.1 to be read by httpx, then misbehaves:

- ``/drip``: a 200 stream of one byte every ``DRIP`` seconds, forever;
- ``/drip-head``: the response head itself, one byte at a time;
- ``/silent``: a 200 head, then nothing, the connection held open;
- ``/big-head``: a 200 head with a header line of 200 KiB (more than any client takes);
- ``/endless``: valid chat chunks as fast as the socket takes them, forever;
- ``/huge``: a valid chat stream of ``HUGE`` bytes (``?bytes=N``: N), ending well;
- ``/gzip-bomb``: 200, ``content-encoding: gzip`` (identity was asked for): a gigabyte of
  zeros in about a megabyte;
- ``/echo``: 401 with the request's key echoed in a header and in an OpenAI-style error
  body (masked as OpenAI masks it, and whole);
- ``/echo-stream``: 200, a chat stream whose text holds the key;
- ``/echo-split``: 200, the key split over three content deltas;
- ``/echo-escaped``: 200, the key ``\\u``-escaped in one delta (and with ``\\/`` for a slash);
- ``/echo-forms``: 200, the key transformed as careless code echoes it: base64 of it and of
  ``user:key`` (in the text and in response headers), URL-encoded, upper- and lower-cased,
  and masked as OpenAI masks it (first 8, ``****``, last 4);
- ``/set-cookie``: 200 with a 60 KB ``Set-Cookie`` (a session value no browser would keep),
  then a Gemini stream of ``?bytes=N`` (2 MB) as Google's JSON writes it, an escape every
  dozen bytes, as fast as the socket takes it.

Every connection runs on its own daemon thread and stops when the client goes away.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import gzip
import json
import random
import re
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HOST = "127.0.0.1"
DRIP = 0.2
HUGE = 64 * 1024 * 1024
#: The 60 KB session value ``/set-cookie`` sets.
COOKIE = base64.b64encode(random.Random(60).randbytes(45_000)).decode()


def chunk(text: str, finish: str | None = None) -> bytes:
    obj = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [
            {"index": 0, "delta": {"content": text} if text else {}, "finish_reason": finish}
        ],
    }
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


@functools.cache
def bomb() -> bytes:
    """256 MiB of zeros after ``data: ``, gzipped into about 256 KiB (256 gzip members of
    a MiB each: one body, as any gzip reader reads it)."""
    member = gzip.compress(b"\0" * (1024 * 1024), compresslevel=9)
    return gzip.compress(b"data: ") + member * 256


HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
    b"connection: close\r\n"
)


def _key_of(request: bytes) -> str:
    for line in request.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"authorization":
            return value.strip().decode().removeprefix("Bearer ").strip()
        if name.strip().lower() in (b"x-api-key", b"api-key"):
            return value.strip().decode()
    return ""


def _read_request(conn: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        got = conn.recv(65536)
        if not got:
            return data
        data += got
    head, _, body = data.partition(b"\r\n\r\n")
    for line in head.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            want = int(value)
            while len(body) < want:
                got = conn.recv(65536)
                if not got:
                    break
                body += got
    return head + b"\r\n\r\n" + body


def _serve(conn: socket.socket) -> None:
    with conn:
        request = _read_request(conn)
        path = request.split(b" ", 2)[1].decode() if request.count(b" ") >= 2 else "/"
        key = _key_of(request)
        size = re.search(r"[?&]bytes=(\d+)", path)
        with contextlib.suppress(OSError):  # the client went away: the point of most of these
            _behave(conn, path.split("?")[0], key, int(size.group(1)) if size else HUGE)


def _behave(conn: socket.socket, path: str, key: str, huge: int = HUGE) -> None:
    if path.endswith("/drip-head"):
        for b in HEAD + b"\r\n" + chunk("hi"):
            conn.sendall(bytes([b]))
            time.sleep(DRIP)
    elif path.endswith("/silent"):
        conn.sendall(HEAD + b"\r\n")
        while conn.recv(1024):  # until the client goes away
            pass
    elif path.endswith("/big-head"):
        conn.sendall(HEAD + b"x-big: " + b"a" * (200 * 1024) + b"\r\n\r\n" + chunk("hi"))
    elif path.endswith("/drip"):
        conn.sendall(HEAD + b"\r\n")
        while True:
            conn.sendall(b":")
            time.sleep(DRIP)
    elif path.endswith("/endless"):
        conn.sendall(HEAD + b"\r\n")
        piece = chunk("x" * 1000) * 64
        while True:
            conn.sendall(piece)
    elif path.endswith("/huge"):
        conn.sendall(HEAD + b"\r\n")
        piece = chunk("y" * 1000) * 64
        sent = 0
        while sent < huge:
            conn.sendall(piece)
            sent += len(piece)
        conn.sendall(chunk("", "stop") + b"data: [DONE]\n\n")
    elif path.endswith("/gzip-bomb"):
        conn.sendall(HEAD + b"content-encoding: gzip\r\n\r\n" + bomb())
    elif path.endswith("/set-cookie"):
        from tests.hostile.masking import escaped_gemini

        head = HEAD + f"set-cookie: session={COOKIE}\r\n".encode()
        conn.sendall(head + b"\r\n" + escaped_gemini(min(huge, 2_000_000)))
    elif path.endswith("/echo-split"):
        third = len(key) // 3
        pieces = [f"key: {key[:third]}", key[third : 2 * third], f"{key[2 * third :]}."]
        conn.sendall(HEAD + b"\r\n" + b"".join(chunk(p) for p in pieces) + chunk("", "stop"))
        conn.sendall(b"data: [DONE]\n\n")
    elif path.endswith("/echo-escaped"):
        escaped = "".join(f"\\u{ord(c):04x}" for c in key)
        frame = chunk("ESCAPED").replace(b"ESCAPED", f"k1 {escaped} k2 ".encode())
        slashed = chunk("SLASHED").replace(b"SLASHED", key.replace("/", "\\/").encode())
        conn.sendall(HEAD + b"\r\n" + frame + slashed + chunk("", "stop") + b"data: [DONE]\n\n")
    elif path.endswith("/echo-forms"):
        forms = echo_forms(key)
        head = HEAD + f"x-echo-b64: {forms['base64']}\r\n".encode()
        head += f"x-echo-basic: Basic {forms['basic']}\r\n".encode()
        text = " | ".join(f"{name}={value}" for name, value in forms.items())
        conn.sendall(head + b"\r\n" + chunk(text) + chunk("", "stop") + b"data: [DONE]\n\n")
    elif path.endswith("/echo-stream"):
        conn.sendall(HEAD + b"\r\n" + chunk(f"your key is {key}.") + chunk("", "stop"))
        conn.sendall(b"data: [DONE]\n\n")
    elif path.endswith("/echo"):
        masked = key[:3] + "*" * max(0, len(key) - 7) + key[-4:]
        body = json.dumps(
            {
                "error": {
                    "message": f"Incorrect API key provided: {masked}. Yours was {key}.",
                    "type": "invalid_request_error",
                    "code": "invalid_api_key",
                }
            }
        ).encode()
        conn.sendall(
            b"HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\n"
            + f"x-echo-key: {key}\r\ncontent-length: {len(body)}\r\n".encode()
            + b"connection: close\r\n\r\n"
            + body
        )
    else:
        conn.sendall(b"HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")


def echo_forms(key: str) -> dict[str, str]:
    """The transformed echoes of ``key`` that ``/echo-forms`` sends, by name."""
    import base64
    from urllib.parse import quote

    return {
        "base64": base64.b64encode(key.encode()).decode(),
        "basic": base64.b64encode(f"user:{key}".encode()).decode(),
        "inside": base64.b64encode(f'{{"k": "{key}"}}'.encode()).decode(),
        "url": quote(key, safe=""),
        "upper": key.upper(),
        "lower": key.lower(),
        "masked": key[:8] + "****" + key[-4:],
    }


def suite_at(folder: Path, path: str, recording: Path, extra: str = "") -> Path:
    """A one-scenario suite whose gateway path is one of the peer's behaviours (``extra``:
    more top-level TOML, e.g. ``deadline = 1``)."""
    suite = folder / "suite.toml"
    suite.write_text(
        f'name = "hostile"\npath = "{path}"\nspeed = 0\n{extra}'
        f'[[scenario]]\nname = "text"\nrecording = "{recording}"\n',
        encoding="utf-8",
    )
    return suite


@contextmanager
def hostile_peer() -> Iterator[str]:
    """The hostile peer's base URL, for as long as the block runs."""
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((HOST, 0))
    srv.listen(64)
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            threading.Thread(target=_serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"http://{HOST}:{srv.getsockname()[1]}"
    finally:
        stop.set()
        srv.close()
