"""Load and abuse: 200 clients at once, clients that leave mid-stream, slow readers, hostile
requests, and where the server binds.

Raw TCP throughout (chunked transfer encoding is decoded here, strictly), so every byte the
server sends is checked. Every server binds 127.0.0.1 on a port the OS picks; every client
connects there and nowhere else. Memory, sockets and tasks are read from the running process
(/proc/self, the server's own event loop), so these tests need Linux.

The bugs these tests found (a client leaving during a pause held until the next write, a copy
of the body per response, lenient number parsing, an untimed chunked body) are fixed; the
tests stay as regressions.
"""

from __future__ import annotations

import asyncio
import builtins
import contextlib
import gc
import io
import json
import logging
import os
import pathlib
import random
import socket
import statistics
import struct
import threading
import time
import tracemalloc
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from sseconform.recording.format import Response, write_recording
from sseconform.replay import server as server_module
from sseconform.replay.http11 import MAX_BODY
from sseconform.replay.plan import Loaded, load
from sseconform.replay.routing import FAULT_HEADER, SELECT_HEADER
from sseconform.replay.server import ReplayServer
from tests.replay.conftest import (
    ANTHROPIC_TEXT,
    ANTHROPIC_TOOL,
    GEMINI,
    HOST,
    LOADED,
    PATHS,
    TEXT,
    path_for,
    rec,
    serving,
)

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads /proc/self (Linux)"
)

ALL = sorted(LOADED)
# what may answer: a recording's body, or a Gemini one as the JSON array (no alt=sse)
GIVEN_BODIES = {r.body for r in LOADED.values()} | {
    r.array.payload for r in LOADED.values() if r.dialect == "gemini"
}


# -- helpers -------------------------------------------------------------------------------


def _request(
    path: str,
    headers: dict[str, str] | None = None,
    body: bytes = b"",
    *,
    method: str = "POST",
) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"host: {HOST}", f"content-length: {len(body)}"]
    lines.append("connection: close")  # one request per connection: read to the server's close
    lines += [f"{k}: {v}" for k, v in (headers or {}).items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def _select(r: Loaded) -> bytes:
    """A request for one recording by name, on its dialect's path."""
    assert r.dialect is not None
    return _request(PATHS[r.dialect], {SELECT_HEADER: r.name})


def _dechunk(data: bytes) -> tuple[bytes, bool]:
    """A chunked body decoded strictly: (the data, whether it ended with the last chunk and
    nothing after it). A size line that is not plain hex, or a chunk not followed by CRLF,
    counts as not complete."""
    out = bytearray()
    pos = 0
    while True:
        eol = data.find(b"\r\n", pos)
        if eol < 0:
            return bytes(out), False
        size_text = data[pos:eol]
        if not size_text or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
            return bytes(out), False
        size = int(size_text, 16)
        pos = eol + 2
        if size == 0:
            return bytes(out), data[pos:] == b"\r\n"
        if len(data) < pos + size + 2:
            out += data[pos : pos + size]
            return bytes(out), False
        out += data[pos : pos + size]
        if data[pos + size : pos + size + 2] != b"\r\n":
            return bytes(out), False
        pos += size + 2


@dataclass
class Reply:
    status: int  # 0: no complete response head
    headers: dict[str, str]
    body: bytes
    complete: bool  # the body ended the way its framing says it ends


def _parse(raw: bytes) -> Reply:
    head, sep, rest = raw.partition(b"\r\n\r\n")
    if not sep or not head.startswith(b"HTTP/1.1 "):
        return Reply(0, {}, b"", False)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding") == "chunked":
        body, complete = _dechunk(rest)
        return Reply(status, headers, body, complete)
    if "content-length" in headers:
        n = int(headers["content-length"])
        return Reply(status, headers, rest[:n], len(rest) == n)
    return Reply(status, headers, rest, True)


def _exchange(
    port: int, data: bytes, *, shut: bool = False, timeout: float = 10.0
) -> tuple[bytes, str]:
    """Send, optionally half-close, read to the end: (bytes, "eof" | "reset" | "timeout")."""
    with socket.create_connection((HOST, port), timeout=timeout) as s:
        try:
            s.sendall(data)
            if shut:
                s.shutdown(socket.SHUT_WR)
        except ConnectionError:
            return b"", "reset"
        out = bytearray()
        while True:
            try:
                chunk = s.recv(65536)
            except ConnectionResetError:
                return bytes(out), "reset"
            except TimeoutError:
                return bytes(out), "timeout"
            if not chunk:
                return bytes(out), "eof"
            out += chunk


def _normal_request_works(port: int, r: Loaded | None = None) -> None:
    r = r or rec(ANTHROPIC_TEXT)
    raw, how = _exchange(port, _select(r))
    reply = _parse(raw)
    assert (how, reply.status, reply.complete) == ("eof", 200, True), raw[:200]
    assert reply.body == r.body


def _open_tasks(server: ReplayServer) -> int:
    """Tasks on the server's event loop (one per connection being handled), counted on that
    loop's own thread."""
    assert server._server is not None
    loop = server._server.get_loop()

    async def count() -> int:
        me = asyncio.current_task()
        return sum(1 for t in asyncio.all_tasks() if t is not me)

    return asyncio.run_coroutine_threadsafe(count(), loop).result(timeout=5)


def _open_sockets() -> int:
    """Socket file descriptors of this process (server and test clients alike)."""
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/self/fd/{fd}").startswith("socket:"):
                n += 1
    return n


def _rss() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


def _wait_until(check: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        if check():
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)


def _rst_close(s: socket.socket) -> None:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


@contextlib.contextmanager
def _asyncio_complaints() -> Iterator[list[str]]:
    """What asyncio logs at WARNING and above (a failed task, writes to a lost connection)."""
    found: list[str] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            found.append(record.getMessage().split("\n")[0])

    log = logging.getLogger("asyncio")
    handler = Keep(logging.WARNING)
    log.addHandler(handler)
    try:
        yield found
    finally:
        log.removeHandler(handler)


def _is_escaped(line: str) -> bool:
    """No C0/C1 control character and no line separator in a log line."""
    return not any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 or ch in "\u2028\u2029" for ch in line)


def _big_recording(path: Path, size: int) -> Loaded:
    """An OpenAI chat recording of about ``size`` bytes, in reads of about 4 KiB (one event
    each, numbered, so a byte out of place is seen)."""
    reads = []
    for i in range(size // 4096):
        content = f"{i:08d}" + "x" * 3980
        event = {"object": "chat.completion.chunk", "choices": [{"delta": {"content": content}}]}
        reads.append((i * 1e-4, b"data: " + json.dumps(event).encode() + b"\n\n"))
    reads.append((len(reads) * 1e-4, b"data: [DONE]\n\n"))
    head = Response(200, "OK", "HTTP/1.1", [("content-type", "text/event-stream")])
    request = {"url": "http://127.0.0.1/v1/chat/completions", "body": {"model": "big-model"}}
    write_recording(path, reads, response=head, request=request)
    return load(str(path))


@contextlib.contextmanager
def _server(recordings: list[Loaded], **kwargs: Any) -> Iterator[ReplayServer]:
    kwargs.setdefault("speed", 0)
    server = ReplayServer(recordings, host=HOST, port=0, **kwargs)
    with server.running():
        yield server


# -- 1. many clients at once ---------------------------------------------------------------

CLIENTS = 200
LOAD_SECONDS = 4.0


@dataclass
class Tally:
    ok: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    wrong: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    in_flight: int = 0
    max_in_flight: int = 0


async def _exchange_async(port: int, data: bytes) -> bytes:
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        writer.write(data)
        await writer.drain()
        return await reader.read()  # to the server's close
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


async def _hammer(
    port: int, jobs: list[tuple[bytes, bytes]], clients: int, seconds: float, tally: Tally
) -> None:
    """``clients`` connections at a time, each one request after another until the time is up;
    every answer is checked against the body it must be."""
    loop = asyncio.get_running_loop()
    go = asyncio.Event()
    deadline = 0.0

    async def one(i: int) -> None:
        k = i
        await go.wait()
        while loop.time() < deadline:
            request, expected = jobs[k % len(jobs)]
            k += 1
            t0 = loop.time()
            tally.in_flight += 1
            tally.max_in_flight = max(tally.max_in_flight, tally.in_flight)
            try:
                raw = await asyncio.wait_for(_exchange_async(port, request), 20)
            except TimeoutError:
                tally.errors["timeout (a hang)"] += 1
                continue
            except (OSError, asyncio.IncompleteReadError) as exc:
                tally.errors[type(exc).__name__] += 1  # a clean error: refused or reset
                continue
            finally:
                tally.in_flight -= 1
            reply = _parse(raw)
            if reply.status == 200 and reply.complete and reply.body == expected:
                tally.ok += 1
                tally.seconds.append(loop.time() - t0)
            elif reply.status == 200 and not reply.complete and expected.startswith(reply.body):
                tally.errors["incomplete (a clean drop)"] += 1
            else:
                tally.wrong.append(f"{reply.status} {len(reply.body)} bytes: {raw[:120]!r}")

    tasks = [asyncio.create_task(one(i)) for i in range(clients)]
    await asyncio.sleep(0)
    deadline = loop.time() + seconds
    go.set()
    await asyncio.gather(*tasks)


@pytest.mark.parametrize(
    ("speed", "names"),
    [(0.0, ALL), (1.0, [ANTHROPIC_TEXT])],
    ids=["speed-0-every-recording", "speed-1-short-recording"],
)
def test_200_concurrent_clients_get_byte_exact_answers(speed: float, names: list[str]) -> None:
    lines: list[str] = []
    jobs = [(_select(rec(n)), rec(n).body) for n in names]
    tally = Tally()
    peak_tasks = 0
    with _asyncio_complaints() as complaints, serving(speed=speed, log=lines.append) as server:
        stop = threading.Event()

        def sample() -> None:  # tasks: one per connection, two while wait_for reads a head
            nonlocal peak_tasks
            while not stop.wait(0.1):
                with contextlib.suppress(TimeoutError):  # a busy loop may not answer in time
                    peak_tasks = max(peak_tasks, _open_tasks(server))

        sampler = threading.Thread(target=sample, name="test-load-sampler")
        sampler.start()
        t0 = time.monotonic()
        try:
            asyncio.run(_hammer(server.port, jobs, CLIENTS, LOAD_SECONDS, tally))
        finally:
            stop.set()
            sampler.join()
        elapsed = time.monotonic() - t0
        # every answer sent is logged; the server is idle again, then answers a normal request
        assert _wait_until(lambda: len(lines) >= tally.ok, 5)
        assert _wait_until(lambda: _open_tasks(server) == 0, 5)
        _normal_request_works(server.port)
    seconds = sorted(tally.seconds)
    p50 = statistics.median(seconds)
    p99 = seconds[int(len(seconds) * 0.99)]
    attempts = tally.ok + sum(tally.errors.values()) + len(tally.wrong)
    print(
        f"\n{CLIENTS} clients, speed {speed}: {tally.ok} answers byte-exact of {attempts} "
        f"in {elapsed:.1f} s ({tally.ok / elapsed:.0f}/s), errors {dict(tally.errors)}, "
        f"{tally.max_in_flight} in flight, server loop peak {peak_tasks} tasks, "
        f"p50 {p50:.3f} s, p99 {p99:.3f} s, max {seconds[-1]:.3f} s"
    )
    assert tally.wrong == []
    assert "timeout (a hang)" not in tally.errors
    assert sum(tally.errors.values()) <= attempts // 100  # clean errors stay rare
    assert tally.max_in_flight == CLIENTS
    assert tally.ok >= CLIENTS * 2
    assert elapsed < LOAD_SECONDS + 10
    assert complaints == []
    assert all(line.endswith("(complete)") for line in lines), [
        line for line in lines if not line.endswith("(complete)")
    ][:5]
    if speed:
        duration = rec(ANTHROPIC_TEXT).reads[-1][0]
        # concurrently, on schedule: never early, and most not much later than recorded
        assert peak_tasks >= CLIENTS * 3 // 4
        assert seconds[0] > duration - 0.05, seconds[0]
        assert p50 < duration + 0.5, p50


# -- 2. clients that leave mid-stream ------------------------------------------------------


def _leave_early(port: int, request: bytes, n: int, rst: bool, rcvbuf: int | None) -> int:
    """Send the request (or half of it when ``n`` < 0), read ``n`` bytes, then leave: a close,
    or a reset (SO_LINGER 0). Returns the bytes read."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    got = 0
    try:
        if rcvbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.settimeout(10)
        s.connect((HOST, port))
        s.sendall(request if n >= 0 else request[: len(request) // 2])
        while got < n:
            chunk = s.recv(min(65536, n - got))
            if not chunk:
                break
            got += len(chunk)
    finally:
        if rst:
            _rst_close(s)
        else:
            s.close()
    return got


def test_clients_that_leave_mid_stream_leave_nothing_behind(tmp_path: Path) -> None:
    big = _big_recording(tmp_path / "big.jsonl", 2 * 1024 * 1024)
    small = [rec(n) for n in (ANTHROPIC_TOOL, TEXT, GEMINI)]
    given = [big, *small, rec(ANTHROPIC_TEXT)]  # the last for the well-behaved client
    rng = random.Random(20240611)
    leavers = []
    for i in range(90):
        if i % 3 == 0:  # the server blocked in drain() on a full socket when the client leaves
            request, size, rcvbuf = _select(big), len(big.body), 4096
        else:  # ... or sleeping out a stall between two events
            r = small[i % len(small)]
            headers = {SELECT_HEADER: r.name, FAULT_HEADER: f"stall=0.{rng.randint(1, 3)}@1"}
            request, size, rcvbuf = _request(path_for(r.name), headers), len(r.body), None
        n = rng.choice([-1, 0, rng.randint(1, 400), rng.randint(1, size)])
        leavers.append((request, n, rng.random() < 0.5, rcvbuf))

    lines: list[str] = []
    good: list[bool] = []
    with (
        _asyncio_complaints() as complaints,
        _server(given, log=lines.append) as server,
    ):
        gc.collect()
        threads_before = set(threading.enumerate())
        sockets_before = _open_sockets()
        assert _open_tasks(server) == 0
        stop = threading.Event()

        def well_behaved() -> None:  # another client, served all along
            while not stop.is_set():
                raw, how = _exchange(server.port, _select(rec(ANTHROPIC_TEXT)))
                reply = _parse(raw)
                good.append(
                    how == "eof" and reply.complete and reply.body == rec(ANTHROPIC_TEXT).body
                )

        other = threading.Thread(target=well_behaved, name="test-load-good-client")
        other.start()
        t0 = time.monotonic()
        try:
            with ThreadPoolExecutor(max_workers=30, thread_name_prefix="test-load-leaver") as pool:
                read = list(pool.map(lambda a: _leave_early(server.port, *a), leavers))
        finally:
            stop.set()
            other.join(timeout=15)
        abuse_seconds = time.monotonic() - t0
        t1 = time.monotonic()
        released = _wait_until(
            lambda: _open_tasks(server) == 0 and _open_sockets() <= sockets_before, 3
        )
        release_seconds = time.monotonic() - t1
        tasks_after, sockets_after = _open_tasks(server), _open_sockets()
        threads_after = {t for t in threading.enumerate() if not t.name.startswith("test-load")}
        _normal_request_works(server.port)
    print(
        f"\n{len(leavers)} clients left early ({sum(1 for x in leavers if x[2])} by "
        f"reset) after {sum(read)} bytes in all, in {abuse_seconds:.2f} s; "
        f"{len(good)} requests of a well-behaved client meanwhile; "
        f"released in {release_seconds:.2f} s; {len(lines)} log lines"
    )
    assert good and all(good), good.count(False)
    assert released, (tasks_after, sockets_after, sockets_before)
    assert threads_after <= threads_before, threads_after - threads_before
    assert complaints == []
    endings = Counter(line.rsplit("(", 1)[1].rstrip(")") for line in lines)
    # a client that left inside its request is answered 400 (if it still reads) and logged
    assert set(endings) <= {"complete", "client hung up", "refused: the request was cut short"}
    assert endings["client hung up"] > 0


@pytest.mark.parametrize("rst", [False, True], ids=["close", "reset"])
def test_a_client_that_leaves_during_a_stall_is_released_at_once(rst: bool) -> None:
    with serving([ANTHROPIC_TOOL]) as server:
        gc.collect()
        sockets_before = _open_sockets()
        s = socket.create_connection((HOST, server.port), timeout=5)
        s.sendall(_request("/v1/messages", {FAULT_HEADER: "stall=4@1"}))
        got = b""
        while not got.partition(b"\r\n\r\n")[2]:  # the head and event 1 ...
            got += s.recv(65536)
        time.sleep(0.1)  # ... then the server sleeps out the stall
        if rst:
            _rst_close(s)
        else:
            s.close()
        released = _wait_until(
            lambda: _open_tasks(server) == 0 and _open_sockets() <= sockets_before, 1.5
        )
        assert released, (
            f"1.5 s after the client left: {_open_tasks(server)} task(s) still open, "
            f"{_open_sockets() - sockets_before} socket(s) more than before"
        )


# -- 3. slow readers -----------------------------------------------------------------------

BIG = 8 * 1024 * 1024
SLOW_CLIENTS = 4


@dataclass
class SlowFigures:
    body: int
    rss_growth: int
    traced_growth: int
    slow_read: list[int]
    fast_seconds: list[float]
    big_seconds: float
    open_while_slow: int


def _slow_readers(tmp_path: Path, *, trace: bool) -> SlowFigures:
    """SLOW_CLIENTS clients with a tiny receive buffer reading 1 byte every few ms from an
    8 MiB recording, while fast clients get a short recording, and one the whole 8 MiB.

    Memory is VmRSS, and with ``trace`` Python's own allocations too (tracemalloc): RSS alone
    can miss growth when the allocator reuses what an earlier test freed, and tracemalloc
    slows every allocation, so it is off where the fast clients are timed."""
    big = _big_recording(tmp_path / "big.jsonl", BIG)
    small = rec(ANTHROPIC_TEXT)
    trace = trace and not tracemalloc.is_tracing()
    with _server([big, small]) as server:
        _normal_request_works(server.port)  # warm up
        gc.collect()
        if trace:
            tracemalloc.start()
        rss_before = _rss()
        traced_before = tracemalloc.get_traced_memory()[0]
        rss_peak, traced_peak = rss_before, traced_before
        slow = []
        for _ in range(SLOW_CLIENTS):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
            s.settimeout(5)
            s.connect((HOST, server.port))
            s.sendall(_select(big))
            slow.append(s)
        slow_read = [0] * SLOW_CLIENTS
        fast_seconds: list[float] = []
        big_seconds = 0.0
        open_while_slow = 0
        try:
            window_over = threading.Event()  # memory is measured until then
            done = threading.Event()

            def fast() -> None:
                nonlocal big_seconds
                while not window_over.is_set():
                    t0 = time.monotonic()
                    _normal_request_works(server.port)
                    fast_seconds.append(time.monotonic() - t0)
                    time.sleep(0.02)
                # then one client that reads the whole 8 MiB at full speed (not measured: its
                # own buffers are in this process too)
                t0 = time.monotonic()
                _normal_request_works(server.port, big)
                big_seconds = time.monotonic() - t0
                done.set()

            fast_thread = threading.Thread(target=fast, name="test-load-fast")
            fast_thread.start()
            t_end = time.monotonic() + 2.0
            while not done.is_set() and time.monotonic() < t_end + 20:
                for i, s in enumerate(slow):
                    slow_read[i] += len(s.recv(1))
                if not window_over.is_set():
                    rss_peak = max(rss_peak, _rss())
                    traced_peak = max(traced_peak, tracemalloc.get_traced_memory()[0])
                    if time.monotonic() > t_end:
                        window_over.set()
                time.sleep(0.004)
            fast_thread.join(timeout=20)
            open_while_slow = _open_tasks(server)
        finally:
            if trace:
                tracemalloc.stop()
            for s in slow:
                _rst_close(s)
        assert _wait_until(lambda: _open_tasks(server) == 0, 3)
        _normal_request_works(server.port)
    return SlowFigures(
        len(big.body),
        rss_peak - rss_before,
        traced_peak - traced_before,
        slow_read,
        fast_seconds,
        big_seconds,
        open_while_slow,
    )


def _report(f: SlowFigures) -> str:
    return (
        f"{SLOW_CLIENTS} slow readers of a {f.body / 2**20:.1f} MiB body "
        f"(read {f.slow_read} bytes): VmRSS +{f.rss_growth / 2**20:.1f} MiB, "
        f"Python allocations {f'+{f.traced_growth / 2**20:.1f} MiB' if f.traced_growth else '-'}; "
        f"{len(f.fast_seconds)} fast "
        f"requests, slowest {max(f.fast_seconds, default=0):.3f} s; the whole body to a fast "
        f"client in {f.big_seconds:.2f} s"
    )


def test_slow_readers_do_not_hold_up_fast_clients(tmp_path: Path) -> None:
    f = _slow_readers(tmp_path, trace=False)
    print("\n" + _report(f))
    assert all(n > 0 for n in f.slow_read)  # each slow client was being served ...
    assert f.open_while_slow >= SLOW_CLIENTS  # ... and still is, a byte at a time
    assert len(f.fast_seconds) >= 20 and max(f.fast_seconds) < 0.5, f.fast_seconds
    assert 0 < f.big_seconds < 5
    # bounded (the next test holds it to much less: a transport buffer per slow client)
    bound = SLOW_CLIENTS * f.body * 1.5 + 32 * 2**20
    assert f.rss_growth < bound and f.traced_growth < bound, _report(f)


def test_slow_readers_cost_no_more_than_a_transport_buffer_each(tmp_path: Path) -> None:
    f = _slow_readers(tmp_path, trace=True)
    print("\n" + _report(f))
    bound = SLOW_CLIENTS * 2 * 2**20  # 2 MiB per slow client; the body is 8 MiB
    assert max(f.rss_growth, f.traced_growth) < bound, _report(f)


# -- 4. hostile requests -------------------------------------------------------------------

M = b"POST /v1/messages HTTP/1.1\r\nhost: x\r\n"

BAD = {  # each must be answered 400 (or, past the size limits, closed or reset) at once
    "request line without version": b"GET /\r\n\r\n",
    "request line of four words": b"GET / x HTTP/1.1\r\nhost: t\r\n\r\n",
    "lower-case http version": b"POST /v1/messages http/1.1\r\n\r\n",
    "empty request line": b"\r\n\r\n",
    "HTTP/0.9 then half-close": b"GET /\r\n",
    "half a head then half-close": M[:30],
    "folded line before any header": b"POST /v1/messages HTTP/1.1\r\n c\r\n\r\n",
    "content-length in exponent form": M + b"content-length: 1e3\r\n\r\n",
    "content-length list": M + b"content-length: 5, 5\r\n\r\nhello",
    "content-length one over the limit": M + b"content-length: %d\r\n\r\n" % (MAX_BODY + 1),
    "content-length of 5000 digits": M + b"content-length: " + b"9" * 5000 + b"\r\n\r\n",
    "chunk size line over 64 KiB": M + b"transfer-encoding: chunked\r\n\r\n" + b"1" * 70_000,
    "3000 headers, 120 KiB in all": M
    + b"".join(b"x-h%d: %s\r\n" % (i, b"v" * 30) for i in range(3000))
    + b"\r\n",
    "request line over 64 KiB": b"POST /" + b"a" * 70_000 + b" HTTP/1.1\r\nhost: t\r\n\r\n",
}
HALF_CLOSED = {"HTTP/0.9 then half-close", "half a head then half-close"}


#: What a request that cannot be served gets (see test_server.REFUSED).
REFUSED = {400, 413, 431, 501, 505}


def test_more_malformed_requests_get_400_and_the_server_keeps_serving() -> None:
    """Beyond test_server's list; each is answered 400 at once (or, past a limit, closed)."""
    lines: list[str] = []
    with serving([ANTHROPIC_TEXT], log=lines.append) as server:
        for label, data in BAD.items():
            t0 = time.monotonic()
            raw, how = _exchange(server.port, data, shut=label in HALF_CLOSED)
            seconds = time.monotonic() - t0
            reply = _parse(raw)
            big = len(data) > 64 * 1024
            assert reply.status in REFUSED or (big and raw == b""), (label, how, raw[:100])
            if reply.status:
                assert reply.complete and json.loads(reply.body)["error"]["message"]
            assert seconds < 1.0, (label, seconds)
        _normal_request_works(server.port)
    assert all(_is_escaped(line) for line in lines)


def test_a_fully_sent_request_then_half_close_gets_the_whole_stream() -> None:
    with serving([ANTHROPIC_TEXT, GEMINI]) as server:
        for name in (ANTHROPIC_TEXT, GEMINI):
            raw, how = _exchange(server.port, _select(rec(name)), shut=True)
            reply = _parse(raw)
            assert (how, reply.status, reply.complete) == ("eof", 200, True)
            assert reply.body == rec(name).body


def _chunked(body: bytes) -> bytes:
    return M + b"transfer-encoding: chunked\r\n\r\n" + body


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(
            M + b"content-length: +2\r\n\r\n{}",
            id="content-length-with-sign",
        ),
        pytest.param(
            M + b"content-length: 1_0\r\n\r\n0123456789",
            id="content-length-with-underscore",
        ),
        pytest.param(
            _chunked(b"0x2\r\n{}\r\n0\r\n\r\n"),
            id="chunk-size-0x",
        ),
        pytest.param(
            _chunked(b"2\r\n{}XX0\r\n\r\n"),
            id="chunk-without-crlf",
        ),
    ],
)
def test_invalid_framing_numbers_get_400(data: bytes) -> None:
    """RFC 9112: Content-Length is 1*DIGIT, chunk-size 1*HEXDIG, chunk-data is followed by
    CRLF. Every connection is closed after one answer, so nothing can be smuggled: minor."""
    with serving([ANTHROPIC_TEXT]) as server:
        raw, _ = _exchange(server.port, data)
        assert _parse(raw).status == 400, raw[:100]


@pytest.fixture
def short_read_timeout(monkeypatch: pytest.MonkeyPatch) -> float:
    """READ_TIMEOUT (30 s) down to 1 s, so hanging clients are timed out within the test."""
    monkeypatch.setattr(server_module, "READ_TIMEOUT", 1.0)
    return 1.0


def _trickle(port: int, data: bytes, every: float, seconds: float) -> tuple[bytes, float]:
    """Send ``data`` a piece at a time for up to ``seconds``; (what came back, when)."""
    t0 = time.monotonic()
    with socket.create_connection((HOST, port), timeout=seconds + 5) as s:
        s.setblocking(False)
        out = b""
        for i in range(len(data)):
            with contextlib.suppress(BlockingIOError):
                out += s.recv(65536)
            if out or time.monotonic() - t0 > seconds:
                break
            try:
                s.send(data[i : i + 1])
            except ConnectionError:
                break
            time.sleep(every)
        s.setblocking(True)
        with contextlib.suppress(ConnectionError):
            while chunk := s.recv(65536):
                out += chunk
    return out, time.monotonic() - t0


HANGING = {  # with READ_TIMEOUT at 1 s, each must be answered 400 or closed within ~1 s
    "connects and sends nothing": b"",
    "HTTP/0.9 request, connection left open": b"GET /\r\n",
    "LF-only line endings, no blank line": b"POST /v1/messages HTTP/1.1\nhost: x\n",
    "half a head": M,
    "content-length body that never comes": M + b"content-length: 1000\r\n\r\n{",
    "chunked body that never ends": _chunked(b"5\r\nhello\r\n"),
}


def test_clients_that_hang_are_timed_out_and_block_no_one(short_read_timeout: float) -> None:
    lines: list[str] = []
    with serving([ANTHROPIC_TEXT], log=lines.append) as server:
        # 100 idle connections and the hanging requests, all at once
        idle = [socket.create_connection((HOST, server.port), timeout=5) for _ in range(100)]
        try:
            with ThreadPoolExecutor(max_workers=len(HANGING) + 1) as pool:
                hanging = {
                    label: pool.submit(_exchange, server.port, data, timeout=10)
                    for label, data in HANGING.items()
                }
                trickled = pool.submit(
                    _trickle, server.port, _select(rec(ANTHROPIC_TEXT)), 0.2, 4.0
                )  # a slowloris on the head: one byte every 0.2 s
                t0 = time.monotonic()
                for _ in range(20):  # meanwhile, others are served at once
                    t1 = time.monotonic()
                    _normal_request_works(server.port)
                    assert time.monotonic() - t1 < 0.5
                results = {label: f.result() for label, f in hanging.items()}
                answered_in = time.monotonic() - t0
                slow_raw, slow_seconds = trickled.result()
        finally:
            for s in idle:
                s.close()
        for label, (raw, how) in results.items():
            assert how != "timeout", label
            assert _parse(raw).status in (400, 408) or raw == b"", (label, raw[:100])
        assert answered_in < short_read_timeout + 1.5, answered_in
        assert _parse(slow_raw).status in (400, 408) and slow_seconds < short_read_timeout + 1.0
        _normal_request_works(server.port)
    assert all(_is_escaped(line) for line in lines)


def test_a_chunked_body_trickled_forever_is_timed_out(short_read_timeout: float) -> None:
    with serving([ANTHROPIC_TEXT]) as server:
        t0 = time.monotonic()
        with socket.create_connection((HOST, server.port), timeout=5) as s:
            s.sendall(_chunked(b""))
            s.setblocking(False)
            answered = b""
            while time.monotonic() - t0 < 3 * short_read_timeout and not answered:
                try:
                    s.send(b"1\r\n \r\n")  # one byte of body every half timeout
                    answered = s.recv(65536)
                except BlockingIOError:
                    pass
                except ConnectionError:
                    answered = b"<closed>"
                time.sleep(short_read_timeout / 2)
        assert answered, f"still reading the body after {time.monotonic() - t0:.1f} s"


ODD_PATHS = [
    b"/v1/\x00messages",
    b"/\x1b]52;c;aGk=\x07",  # OSC 52: would set the operator's clipboard
    b"/\x9b31m\x85\x7f",  # C1 CSI and NEL, DEL
    "/caf\u00e9/\u202e/v1/messages".encode(),  # UTF-8, with a right-to-left override
    b"/v1/messages\r",
    b"http://127.0.0.1/v1/messages",  # absolute-form: routed by its path, still by name only
    b"http://evil.example/etc/passwd",
    b"file:///etc/passwd",
    b"/v1beta/models/..%2f..%2fetc%2fpasswd:streamGenerateContent",
    b"/v1beta/models/../../etc/passwd:streamGenerateContent",
    b"/v1/%2e%2e/%2e%2e/%2e%2e/etc/passwd/messages",
    b"\\..\\..\\windows\\win.ini",
    b"*",
]
ODD_SELECTIONS = [
    "messages-text.jsonl\x00../../etc/passwd",
    "\x1b[2J\x1b[H",
    "%2e%2e%2f%2e%2e%2fetc%2fpasswd",
    "..\\..\\etc\\passwd",
    "/proc/self/environ",
    "~/.ssh/id_rsa",
    "messages-text.jsonl/../../../etc/passwd",
]
ODD_MODELS = ["../../etc/passwd", "/etc/passwd", "..\\..\\x", "\x1b[2J", "gemini-2.5-flash/../x"]


def _odd_requests() -> list[bytes]:
    out = [
        b"POST %b HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\nconnection: close\r\n\r\n" % p
        for p in ODD_PATHS
    ]
    # the method, too
    out += [b"\x1b[2J\x1b]0;x\x07 /v1/messages HTTP/1.1\r\nhost: t\r\nconnection: close\r\n\r\n"]
    for value in ODD_SELECTIONS:
        out.append(_request("/v1/messages", {SELECT_HEADER: value}))
    for model in ODD_MODELS:
        body = json.dumps({"model": model, "stream": True}).encode()
        out.append(_request("/v1/messages", body=body))
        out.append(_request("/v1/chat/completions", {"x-other": model}, body))
    return out


def test_hostile_paths_headers_and_models_are_answered_only_from_given_recordings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Extends test_server's traversal test: absolute-form URLs, control and non-ASCII
    characters, models that look like paths; every answer is a given recording or a 4xx, no
    file is opened while they are answered, and the log shows them escaped."""
    lines: list[str] = []
    calls: list[str] = []

    def spy(name: str, real: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            calls.append(f"{threading.current_thread().name}: {name}{args[:1]!r}")
            return real(*args, **kwargs)

        return wrapper

    requests = _odd_requests()
    with serving([ANTHROPIC_TEXT, GEMINI, TEXT], log=lines.append) as server:
        spied: list[tuple[ModuleType | type, str]] = [
            (builtins, "open"),
            (io, "open"),
            (os, "open"),
            (os, "stat"),
            (os, "listdir"),
            (pathlib.Path, "read_bytes"),
            (pathlib.Path, "read_text"),
            (pathlib.Path, "open"),
        ]
        for owner, attr in spied:
            monkeypatch.setattr(owner, attr, spy(f"{owner.__name__}.{attr}", getattr(owner, attr)))
        answers = [_exchange(server.port, data) for data in requests]
        monkeypatch.undo()
        _normal_request_works(server.port)
        assert _wait_until(lambda: len(lines) >= len(requests), 2)
    assert calls == []
    statuses: Counter[int] = Counter()
    for data, (raw, how) in zip(requests, answers, strict=True):
        reply = _parse(raw)
        statuses[reply.status] += 1
        assert how == "eof" and reply.complete, (data[:80], how, raw[:100])
        if reply.status == 200:
            assert reply.body in GIVEN_BODIES, data[:80]
        else:
            assert reply.status in (400, 404), (data[:80], raw[:100])
            assert any(line.endswith(")") for line in lines)
            assert b"root:" not in reply.body and b"PATH=" not in reply.body
    print(f"\n{len(requests)} hostile requests: {dict(statuses)}; {len(lines)} log lines")
    bad = [line for line in lines if not _is_escaped(line)]
    assert bad == []
    assert any("\\x1b]52;c;aGk=\\x07" in line for line in lines)
    assert any(
        line.startswith("127.0.0.1:") and "\\x1b[2J\\x1b]0;x\\x07 " in line for line in lines
    )


# -- 5. where the server binds ---------------------------------------------------------------


def test_the_server_binds_loopback_unless_told_otherwise() -> None:
    """The CLI side (its default, and its warning for 0.0.0.0) is in test_server.py."""
    server = ReplayServer([rec(ANTHROPIC_TEXT)], port=0, speed=0)
    assert server.host == "127.0.0.1"
    with server.running():
        assert server._server is not None
        bound = {s.getsockname()[0] for s in server._server.sockets}
        assert bound == {"127.0.0.1"}
        assert server.url == f"http://127.0.0.1:{server.port}"
        _normal_request_works(server.port)


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.8.9.10", True),
        ("localhost", True),
        ("::1", True),
        ("0.0.0.0", False),
        ("::", False),
        ("192.168.1.10", False),
        ("example.com", False),
        ("localhost.example.com", False),
        ("", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert ReplayServer.is_loopback(host) is loopback
