"""``replay``: a mock upstream on loopback that serves recordings byte-exact, on schedule.

asyncio serves many clients at once; each response is executed from a Plan (see plan.py).
Responses are chunked, so a dropped connection is visible to the client as an error, never a
clean end. Recordings are loaded before the server starts and looked up by name in memory:
nothing in a request ever reaches the file system.

Which recording answers a request, in order: the ``x-sseconform-recording`` header (a file
name), a scenario rule, then the path (its dialect), then the model (body ``model`` or the
Gemini path), rotating among equal candidates so multi-turn runs get turn 1, then turn 2.
Faults come from the ``x-sseconform-fault`` header, the scenario rule or ``--fault``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sseconform import providers
from sseconform.replay.plan import (
    ABORT,
    Faults,
    Loaded,
    Plan,
    make_plan,
    parse_faults,
    parse_split,
)
from sseconform.replay.scenario import Rule
from sseconform.safetext import printable

SELECT_HEADER = "x-sseconform-recording"
FAULT_HEADER = "x-sseconform-fault"
MAX_HEAD = 64 * 1024
MAX_BODY = 16 * 1024 * 1024
#: The most one write puts in the transport: bounds what a slow reader's connection holds.
MAX_WRITE = 64 * 1024
_DIGITS = re.compile(r"[0-9]{1,12}")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,8}")
READ_TIMEOUT = 30.0


@dataclass
class Served:
    """One request, as logged and as the lateness benchmark reads it."""

    client: str
    method: str
    path: str
    recording: str | None
    status: int
    faults: str
    sent: int = 0
    ending: str = ""
    seconds: float = 0.0
    lateness: list[float] = field(default_factory=list)

    def line(self) -> str:
        """One log line; request text is escaped, so a client cannot write to the terminal."""
        rec = self.recording or "-"
        fault = f" faults={self.faults}" if self.faults else ""
        return printable(
            f"{self.client} {self.method} {self.path} -> {rec} {self.status}{fault} "
            f"{self.sent} bytes in {self.seconds:.3f} s ({self.ending})"
        )


class ReplayServer:
    """Serve recordings; use ``running()`` from tests and tools, ``serve()`` from the CLI."""

    def __init__(
        self,
        recordings: list[Loaded],
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        speed: float = 1.0,
        split: str | None = None,
        fault: str | None = None,
        rules: list[Rule] | None = None,
        log: Callable[[str], None] | None = None,
        measure: bool = False,
        strict: bool = False,
    ) -> None:
        if not recordings:
            raise ValueError("no recordings to serve")
        names = [r.name for r in recordings]
        if len(set(names)) != len(names):
            raise ValueError("two recordings share a file name; rename one")
        self.recordings = {r.name: r for r in recordings}
        self.host = host
        self.port = port
        self.speed = speed
        self.split = parse_split(split)
        self.fault = parse_faults(fault)
        self.rules = rules or []
        self.log = log
        self.measure = measure
        self.strict = strict  # only rules (or the selection header) choose: no fallback
        self.served: list[Served] = []
        self._rotation: dict[tuple[str | None, str | None], int] = {}
        self._server: asyncio.base_events.Server | None = None
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    @staticmethod
    def is_loopback(host: str) -> bool:
        if host == "localhost":
            return True
        try:
            return ipaddress.ip_address(host).is_loopback
        except ValueError:
            return False

    # -- lifecycle -------------------------------------------------------------------------

    async def start(self) -> None:
        self._server = await asyncio.start_server(
            self._handle, self.host, self.port, limit=MAX_HEAD, reuse_address=True
        )
        self.port = self._server.sockets[0].getsockname()[1]

    async def serve(self) -> None:
        if self._server is None:
            await self.start()
        assert self._server is not None
        async with self._server:
            await self._server.serve_forever()

    @contextlib.contextmanager
    def running(self) -> Iterator[ReplayServer]:
        """Run in a background thread (its own event loop) for the duration of a block."""
        loop = new_loop()
        ready = threading.Event()
        failed: list[BaseException] = []

        def main() -> None:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self.start())
            except BaseException as exc:
                failed.append(exc)
                ready.set()
                return
            ready.set()
            loop.run_forever()

        thread = threading.Thread(target=main, name="sseconform-replay", daemon=True)
        thread.start()
        ready.wait()
        if failed:
            raise failed[0]
        try:
            yield self
        finally:
            loop.call_soon_threadsafe(self._stop, loop)
            thread.join(timeout=10)
            loop.close()

    def _stop(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._server is not None:
            self._server.close()
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.call_later(0.05, loop.stop)

    # -- requests --------------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await self._serve_one(reader, writer)
        except asyncio.CancelledError:
            pass  # our own shutdown: end quietly, so asyncio has no failed task to report
        finally:  # whatever happened, the socket is released
            if not writer.transport.is_closing():
                writer.transport.abort()

    async def _serve_one(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        client = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "?"
        writer.transport.set_write_buffer_limits(0)  # drain() then means "on the wire"
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_TIMEOUT)
            method, path, version, headers = _parse_head(head)
            body = await _read_body(reader, headers)
        except (asyncio.LimitOverrunError, asyncio.IncompleteReadError, TimeoutError, ValueError):
            await _plain(writer, 400, b'{"error": {"message": "bad request"}}')
            return
        except ConnectionError:
            writer.close()
            return
        try:
            await self._respond(client, method, path, headers, body, writer, version, reader=reader)
        except (ConnectionError, asyncio.CancelledError):
            writer.transport.abort()
        finally:
            if not writer.is_closing():
                writer.close()

    def choose(
        self, path: str, headers: dict[str, str], body: bytes
    ) -> tuple[Loaded | None, Faults, float]:
        """The recording, the faults and the speed for one request."""
        faults = self.fault
        speed = self.speed
        model = _model(body)
        named = headers.get(SELECT_HEADER)
        if FAULT_HEADER in headers:
            faults = parse_faults(headers[FAULT_HEADER])
        if named is not None:
            return self.recordings.get(named.strip()), faults, speed
        dialect, path_model = providers.dialect_of_path(path)
        model = model or path_model
        with self._lock:
            for rule in self.rules:
                if rule.matches(path, dialect, model, headers):
                    rule.used += 1
                    if rule.fault is not None and FAULT_HEADER not in headers:
                        faults = parse_faults(rule.fault)
                    if rule.speed is not None:
                        speed = rule.speed
                    return self.recordings[rule.recording], faults, speed
        if dialect is None or self.strict:
            return None, faults, speed
        candidates = [r for r in self.recordings.values() if r.dialect == dialect]
        exact = [r for r in candidates if model is not None and r.model == model]
        pool = exact or candidates
        if not pool:
            return None, faults, speed
        key = (dialect, model if exact else None)
        with self._lock:
            n = self._rotation.get(key, 0)
            self._rotation[key] = n + 1
        return pool[n % len(pool)], faults, speed

    async def _respond(
        self,
        client: str,
        method: str,
        path: str,
        headers: dict[str, str],
        body: bytes,
        writer: asyncio.StreamWriter,
        version: str = "HTTP/1.1",
        *,
        reader: asyncio.StreamReader | None = None,
    ) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        try:
            rec, faults, speed = self.choose(path, headers, body)
        except ValueError as exc:
            await _plain(writer, 400, json.dumps({"error": {"message": str(exc)}}).encode())
            self._log(Served(client, method, path, None, 400, headers.get(FAULT_HEADER, "")))
            return
        if rec is None:
            names = ", ".join(sorted(self.recordings))
            msg = f"no recording for {method} {path} (serving: {names})"
            await _plain(writer, 404, json.dumps({"error": {"message": msg}}).encode())
            self._log(Served(client, method, path, None, 404, faults.spec))
            return
        plan = make_plan(rec, speed=speed, split=self.split, faults=faults)
        served = Served(client, method, path, rec.name, plan.status, faults.spec)
        try:
            await self._execute(
                plan,
                writer,
                start,
                served,
                chunked=version != "HTTP/1.0",
                body=method != "HEAD",
                reader=reader,
            )
        except ConnectionError:
            served.ending = "client hung up"
            raise
        finally:  # every request is logged, however it ended
            served.seconds = loop.time() - start
            if not served.ending:
                served.ending = "stopped"
            self._log(served)

    async def _execute(
        self,
        plan: Plan,
        writer: asyncio.StreamWriter,
        start: float,
        served: Served,
        *,
        chunked: bool = True,
        body: bool = True,
        reader: asyncio.StreamReader | None = None,
    ) -> None:
        """Run a plan. Chunked (HTTP/1.1) so a drop shows as an error; an HTTP/1.0 client
        gets the body as is, ended by the close; HEAD gets the head only."""
        loop = asyncio.get_running_loop()
        # A client that hangs up while we wait (a stall, the gap between reads) is noticed at
        # once: its read ends, and the waiting response is cancelled rather than kept to the
        # next write. (A client that only half-closes is taken as gone too, once we wait:
        # HTTP clients do not half-close.)
        task = asyncio.current_task()
        gone: list[bool] = []
        waiting = [False]

        def hung_up(f: asyncio.Future[bytes]) -> None:
            if f.cancelled() or (f.exception() is None and f.result()):
                return
            gone.append(True)
            if waiting[0] and task is not None:
                task.cancel()

        hangup = asyncio.ensure_future(reader.read(1)) if reader is not None else None
        if hangup is not None:
            hangup.add_done_callback(hung_up)
        try:
            await self._run_plan(plan, writer, start, served, loop, chunked, body, gone, waiting)
        except asyncio.CancelledError:
            if gone:
                raise ConnectionResetError("client hung up") from None
            raise
        finally:
            if hangup is not None and not hangup.done():
                hangup.remove_done_callback(hung_up)
                hangup.cancel()

    async def _run_plan(
        self,
        plan: Plan,
        writer: asyncio.StreamWriter,
        start: float,
        served: Served,
        loop: asyncio.AbstractEventLoop,
        chunked: bool,
        body: bool,
        gone: list[bool],
        waiting: list[bool],
    ) -> None:
        async def pause(due: float) -> None:
            if due <= loop.time():
                return
            if gone:
                raise ConnectionResetError("client hung up")
            waiting[0] = True
            try:
                await _sleep_until(loop, due)
            finally:
                waiting[0] = False

        await pause(start + plan.t_head)
        if plan.json_body:
            await _plain(writer, plan.status, plan.body, reason=plan.reason)
            served.sent = len(plan.body)
            served.ending = "error response"
            return
        lines = [f"HTTP/1.1 {plan.status} {plan.reason}".encode()]
        lines += [f"{k}: {v}".encode("latin-1", "replace") for k, v in plan.headers]
        if chunked:
            lines.append(b"transfer-encoding: chunked")
        lines += [b"connection: close", b"", b""]
        writer.write(b"\r\n".join(lines))
        await writer.drain()
        if not body:
            served.ending = "head only"
            return
        for t, view, first in plan.pieces(MAX_WRITE):
            # a bounded piece at a time: a slow reader's connection holds at most this much
            due = start + t
            await pause(due)
            piece = bytes(view)
            writer.write(b"%x\r\n%b\r\n" % (len(piece), piece) if chunked else piece)
            if self.measure and first:
                served.lateness.append(loop.time() - due)
            await writer.drain()
            served.sent += len(piece)
        if plan.ending == ABORT:
            served.ending = "dropped"
            writer.transport.abort()
            return
        if chunked:
            writer.write(b"0\r\n\r\n")
            await writer.drain()
        served.ending = "complete"

    def _log(self, served: Served) -> None:
        with self._lock:
            if self.measure:
                self.served.append(served)
        if self.log is not None:
            self.log(served.line())


def new_loop() -> asyncio.AbstractEventLoop:
    """An event loop on poll(): epoll rounds every timeout up to the next millisecond and
    Python rounds again, so writes would leave up to 2 ms late; poll keeps p99 near 1 ms."""
    import selectors

    if hasattr(selectors, "PollSelector"):
        return asyncio.SelectorEventLoop(selectors.PollSelector())
    return asyncio.new_event_loop()


async def _sleep_until(loop: asyncio.AbstractEventLoop, due: float) -> None:
    delay = due - loop.time()
    if delay > 0:
        await asyncio.sleep(delay)


def _parse_head(head: bytes) -> tuple[str, str, str, dict[str, str]]:
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or parts[2] not in ("HTTP/1.0", "HTTP/1.1"):
        raise ValueError("bad request line")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, sep, value = line.partition(":")
        if not sep:
            raise ValueError("bad header line")
        headers[name.strip().lower()] = value.strip()
    return parts[0], parts[1], parts[2], headers


async def _read_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    """The request body, read whole within one READ_TIMEOUT; numbers parsed strictly (only
    digits, only hex chunk sizes, CRLF after each chunk), anything else is a bad request."""
    return await asyncio.wait_for(_body(reader, headers), READ_TIMEOUT)


async def _body(reader: asyncio.StreamReader, headers: dict[str, str]) -> bytes:
    coding = headers.get("transfer-encoding")
    if coding is not None:
        if coding.strip().lower() != "chunked":
            raise ValueError("unsupported transfer-encoding")
        out = bytearray()
        while True:
            size_line = await reader.readuntil(b"\r\n")
            token = size_line[:-2].split(b";")[0].strip()
            if not _HEX.fullmatch(token):
                raise ValueError("bad chunk size")
            size = int(token, 16)
            if size == 0:
                await reader.readuntil(b"\r\n")
                return bytes(out)
            if len(out) + size > MAX_BODY:
                raise ValueError("request body too large")
            out += await reader.readexactly(size + 2)
            if out[-2:] != b"\r\n":
                raise ValueError("chunk not followed by CRLF")
            del out[-2:]
    raw = headers.get("content-length", "0") or "0"
    if not _DIGITS.fullmatch(raw):
        raise ValueError("bad content-length")
    length = int(raw)
    if length > MAX_BODY:
        raise ValueError("bad content-length")
    return await reader.readexactly(length) if length else b""


def _model(body: bytes) -> str | None:
    try:
        obj: Any = json.loads(body) if body else None
    except ValueError:
        return None
    model = obj.get("model") if isinstance(obj, dict) else None
    return model if isinstance(model, str) else None


async def _plain(
    writer: asyncio.StreamWriter, status: int, body: bytes, *, reason: str | None = None
) -> None:
    from http import HTTPStatus

    if reason is None:
        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = "Error"
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode()
    writer.write(head + body)
    with contextlib.suppress(ConnectionError):
        await writer.drain()
    writer.close()
