"""``replay``: a mock upstream on loopback that serves recordings byte-exact, on schedule.

asyncio serves many clients at once; each response is executed from a Plan (see plan.py).
Connections are kept alive between requests, as real upstreams keep them and gateways pool
them (HTTP/1.1; an HTTP/1.0 client or ``connection: close`` gets its answer, then the close).
Streams are chunked, so a planned drop is a drop to every client: the response never
announced ``connection: close`` (a client may then take the end of the socket for the end of
the message), no terminating chunk follows, and the socket is reset (SO_LINGER 0), not closed.
Recordings are loaded before the server starts and looked up by name in memory: nothing in a
request ever reaches the file system.

Which recording answers a request, in order: the ``x-sseconform-recording`` header (a file
name), the rules of the request's tag (a ``[sseconform:TAG]`` marker in its body: ``gate`` and
``load`` put one in every prompt, which every gateway forwards, so that hundreds of requests in
flight each find their own scenario), a scenario rule, then the path (its dialect), then the
model (body ``model`` or the Gemini path), rotating among equal candidates so multi-turn runs
get turn 1, then turn 2.
Faults come from the ``x-sseconform-fault`` header, the scenario rule or ``--fault``. A Gemini
request without ``alt=sse`` gets what Google sends then: the same events as a JSON array.

Nothing the server prints or answers about a request carries its credentials: secret-named
query values are redacted as ``record`` redacts them, and the values of auth headers and keys
are scrubbed from the path and every message.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import re
import socket
import struct
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote_plus

from sseconform import providers
from sseconform.recording.redact import REDACTED, SECRET_HEADERS, SECRET_PARAMS, scrub_text
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
#: A request's tag, anywhere in its body (JSON keeps these characters as they are).
TAG = re.compile(rb"\[sseconform:([A-Za-z0-9_.:/-]{1,200})\]")
FAULT_HEADER = "x-sseconform-fault"
MAX_HEAD = 64 * 1024
#: A write later than this after its schedule counts as late (the upstream falling behind).
LATE = 0.010
#: Tags whose rules are kept (a retry of the same request finds them): bounded.
MAX_RESOLVED = 65536
MAX_BODY = 16 * 1024 * 1024
#: The most one write puts in the transport: bounds what a slow reader's connection holds.
MAX_WRITE = 64 * 1024
_DIGITS = re.compile(r"[0-9]{1,12}")
_HEX = re.compile(rb"[0-9A-Fa-f]{1,8}")
READ_TIMEOUT = 30.0
#: How long a kept-alive connection may wait for its next request. Longer than the pools of
#: common clients keep an idle connection (httpx 5 s, undici 4 s, aiohttp 15 s), so a pooled
#: connection is never closed under a request on its way; announced in ``keep-alive``.
IDLE_TIMEOUT = 60
#: How long a drop waits for the bytes before it to leave the socket (a reset discards what
#: the kernel has not sent yet): the client gets every byte the plan sends, then the reset.
FLUSH_TIMEOUT = 5.0
BAD_REQUEST = b'{"error": {"message": "bad request"}}'
#: Credentials shorter than this are not scrubbed from free text (they would match ordinary
#: words); secret-named query values are redacted whatever their length.
MIN_SECRET = 8


@dataclass
class Served:
    """One request, as logged and as the lateness benchmark and the gate read it."""

    client: str
    method: str
    path: str  # redacted: never holds a credential the request carried
    recording: str | None
    status: int
    faults: str
    sent: int = 0
    ending: str = ""
    seconds: float = 0.0
    lateness: list[float] = field(default_factory=list)
    #: the faults that took effect, in order: "status" (sent), "stall" (its wait began),
    #: "error" (the injected event written), "truncate" (the cut event written), "drop" (the
    #: reset, before the natural end). A client that left before a fault's point leaves it out.
    fired: list[str] = field(default_factory=list)
    framing: str = "sse"  # or "json-array": Gemini asked without alt=sse
    tag: str | None = None  # the request's [sseconform:TAG], if it carried one
    #: when measured (``measure=True``, the gate's upstream), for the report's timeline:
    #: the loop time (``time.monotonic``) the request arrived, the plan it was answered
    #: with, each planned write's (seconds after arrival, offset in the payload) as it left,
    #: and the seconds after arrival each ``fired`` fault took effect
    started: float = 0.0
    plan: Plan | None = None
    times: list[tuple[float, int]] = field(default_factory=list)
    fired_at: list[float] = field(default_factory=list)

    def fire(self, fault: str, at: float) -> None:
        self.fired.append(fault)
        self.fired_at.append(at)

    def line(self) -> str:
        """One log line; request text is escaped, so a client cannot write to the terminal."""
        rec = self.recording or "-"
        if self.recording and self.framing != "sse":
            rec += f" as {self.framing}"
        fault = ""
        if self.faults:
            fault = f" faults={self.faults} fired={','.join(self.fired) or 'none'}"
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
        self.tagged: dict[str, list[Rule]] = {}  # a tag's own rules (see tag_of)
        #: rules for a tag not routed yet (``load``: the tag names its scenario), kept for
        #: the tag's later requests (retries) in a bounded cache
        self.resolve_tag: Callable[[str], list[Rule] | None] | None = None
        self._resolved: OrderedDict[str, list[Rule]] = OrderedDict()
        #: always counted, in O(1) memory: scheduled writes, those later than LATE, the worst
        self.writes = 0
        self.late_writes = 0
        self.requests_seen = 0
        self.max_late = 0.0
        self._rotation: dict[tuple[str | None, str | None], int] = {}
        self._server: asyncio.base_events.Server | None = None
        self._connections: set[asyncio.Task[Any]] = set()
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
        """Serve until cancelled; then every connection is ended at once (a kept-alive one
        would otherwise hold the shutdown until its idle timeout)."""
        if self._server is None:
            await self.start()
        assert self._server is not None
        try:
            await asyncio.get_running_loop().create_future()  # until cancelled
        finally:
            self._server.close()
            tasks = list(self._connections)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

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

    # -- connections -----------------------------------------------------------------------

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        if task is not None:
            self._connections.add(task)
        try:
            await self._connection(reader, writer)
        except asyncio.CancelledError:
            pass  # our own shutdown: end quietly, so asyncio has no failed task to report
        finally:  # whatever happened, the socket is released
            if task is not None:
                self._connections.discard(task)
            if not writer.transport.is_closing():
                writer.transport.abort()

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Requests one after another on one connection, until one asks to close, a drop
        resets it, the client leaves or it stays idle for IDLE_TIMEOUT."""
        peer = writer.get_extra_info("peername")
        client = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else "?"
        writer.transport.set_write_buffer_limits(0)  # drain() then means "on the wire"
        conn = _Input(reader)
        while True:
            try:
                head = await asyncio.wait_for(conn.readuntil(b"\r\n\r\n"), READ_TIMEOUT)
                method, path, version, headers = _parse_head(head)
                body = await _read_body(conn, headers)
            except (
                asyncio.LimitOverrunError,
                asyncio.IncompleteReadError,
                TimeoutError,
                ValueError,
            ):
                await _plain(writer, 400, BAD_REQUEST)  # the framing is lost: close after
                return
            except ConnectionError:
                writer.close()
                return
            keep = _keeps_alive(version, headers)
            try:
                keep = await self._respond(
                    client, method, path, headers, body, writer, version, conn=conn, keep=keep
                )
            except (ConnectionError, asyncio.CancelledError):
                writer.transport.abort()
                return
            if not keep or not await conn.next_request(IDLE_TIMEOUT):
                if not writer.is_closing():
                    writer.close()
                return

    # -- requests --------------------------------------------------------------------------

    def route_tag(self, tag: str, rules: list[Rule]) -> None:
        """Requests carrying ``[sseconform:TAG]`` are answered by these rules alone."""
        with self._lock:
            self.tagged[tag] = rules

    def served_for(self, tag: str) -> list[Served]:
        """The requests that carried ``tag``, in the order they ended."""
        with self._lock:
            return [s for s in self.served if s.tag == tag]

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
        tag = tag_of(body)
        with self._lock:
            self.requests_seen += 1
            tagged = self.tagged.get(tag) if tag is not None else None
            if tagged is None and tag is not None and self.resolve_tag is not None:
                tagged = self._resolved.get(tag)
                if tagged is None:
                    tagged = self.resolve_tag(tag)
                    if tagged is not None:
                        self._resolved[tag] = tagged
                        if len(self._resolved) > MAX_RESOLVED:
                            self._resolved.popitem(last=False)
            for rule in tagged if tagged is not None else self.rules:
                if rule.matches(path, dialect, model, headers):
                    rule.used += 1
                    if rule.fault is not None and FAULT_HEADER not in headers:
                        faults = parse_faults(rule.fault)
                    if rule.speed is not None:
                        speed = rule.speed
                    return self.recordings[rule.recording], faults, speed
        if dialect is None or self.strict or tagged is not None:
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
        conn: _Input | None = None,
        keep: bool = False,
    ) -> bool:
        """Answer one request; whether the connection can take another."""
        loop = asyncio.get_running_loop()
        start = loop.time()
        secrets = _secrets(path, headers)
        shown = _redact_target(path, secrets)
        head_only = method == "HEAD"
        try:
            rec, faults, speed = self.choose(path, headers, body)
        except ValueError as exc:
            msg = _scrub(str(exc), secrets)
            await _plain(writer, 400, _error(msg), close=not keep, head_only=head_only)
            fault = _scrub(headers.get(FAULT_HEADER, ""), secrets)
            self._log(Served(client, method, shown, None, 400, fault, tag=tag_of(body)))
            return keep
        spec = _scrub(faults.spec, secrets)
        if rec is None:
            names = ", ".join(sorted(self.recordings))
            msg = f"no recording for {method} {shown} (serving: {names})"
            await _plain(writer, 404, _error(msg), close=not keep, head_only=head_only)
            self._log(Served(client, method, shown, None, 404, spec, tag=tag_of(body)))
            return keep
        array = rec.dialect == providers.GEMINI and _wants_array(path)
        plan = make_plan(rec, speed=speed, split=self.split, faults=faults, array=array)
        served = Served(client, method, shown, rec.name, plan.status, spec, tag=tag_of(body))
        served.framing = "json-array" if array else "sse"
        served.started = start
        if self.measure:
            served.plan = plan
        try:
            return await self._execute(
                plan,
                writer,
                start,
                served,
                chunked=version != "HTTP/1.0",
                body=not head_only,
                conn=conn,
                keep=keep,
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
        conn: _Input | None = None,
        keep: bool = False,
    ) -> bool:
        """Run a plan. Chunked (HTTP/1.1) so a drop shows as an error; an HTTP/1.0 client
        gets the body as is, ended by the close; HEAD gets the head only. Returns whether the
        connection can take another request."""
        loop = asyncio.get_running_loop()
        # A client that hangs up while we wait (a stall, the gap between reads) is noticed at
        # once: its read ends, and the waiting response is cancelled rather than kept to the
        # next write. (A client that only half-closes is taken as gone too, once we wait:
        # HTTP clients do not half-close.) A byte that comes instead is the next request's
        # first, pipelined: kept for it.
        task = asyncio.current_task()
        gone: list[bool] = []
        waiting = [False]

        def hung_up(f: asyncio.Future[bytes]) -> None:
            if f.cancelled() or (f.exception() is None and f.result()):
                return
            gone.append(True)
            if waiting[0] and task is not None:
                task.cancel()

        hangup = asyncio.ensure_future(conn.reader.read(1)) if conn is not None else None
        if hangup is not None:
            hangup.add_done_callback(hung_up)
        keep = keep and chunked and plan.ending != ABORT
        try:
            await self._run_plan(
                plan, writer, start, served, loop, chunked, body, gone, waiting, keep
            )
        except asyncio.CancelledError:
            if gone:
                raise ConnectionResetError("client hung up") from None
            raise
        finally:
            if hangup is not None and not hangup.done():
                hangup.remove_done_callback(hung_up)
                hangup.cancel()
        if hangup is not None and conn is not None:
            await asyncio.wait([hangup])  # a cancelled read must end before the next one starts
            keep = conn.took(hangup) and keep
        return keep and not writer.is_closing()

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
        keep: bool,
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
            await _plain(
                writer, plan.status, plan.body, reason=plan.reason, close=not keep,
                head_only=not body,
            )  # fmt: skip
            served.fire("status", loop.time() - start)
            served.sent = len(plan.body) if body else 0
            served.ending = "error response"
            return
        lines = [f"HTTP/1.1 {plan.status} {plan.reason}".encode()]
        lines += [f"{k}: {v}".encode("latin-1", "replace") for k, v in plan.headers]
        if chunked:
            lines.append(b"transfer-encoding: chunked")
        if keep:
            lines.append(b"keep-alive: timeout=%d" % IDLE_TIMEOUT)
        elif plan.ending != ABORT:
            # A dying upstream never says it will close: a client that reads the end of the
            # socket as the end of a "close" message would take the drop for a clean end.
            lines.append(b"connection: close")
        lines += [b"", b""]
        writer.write(b"\r\n".join(lines))
        await writer.drain()
        if not body:
            served.ending = "head only"
            return
        marks = list(plan.marks)
        for t, offset, view, first in plan.pieces(MAX_WRITE):
            # a bounded piece at a time: a slow reader's connection holds at most this much
            due = start + t
            if first and offset == plan.stall_at:
                served.fire("stall", loop.time() - start)
            await pause(due)
            piece = bytes(view)
            writer.write(b"%x\r\n%b\r\n" % (len(piece), piece) if chunked else piece)
            if first:
                late = loop.time() - due
                self.writes += 1
                if late > LATE:
                    self.late_writes += 1
                self.max_late = max(self.max_late, late)
                if self.measure:
                    served.lateness.append(late)
                    served.times.append((due + late - start, offset))
            await writer.drain()
            served.sent += len(piece)
            while marks and marks[0][0] <= offset + len(piece):
                served.fire(marks.pop(0)[1], loop.time() - start)
        if plan.ending == ABORT:
            await _flushed(writer)
            if plan.cut:
                served.fire("drop", loop.time() - start)
            served.ending = "dropped"
            _reset(writer)
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


class _Input:
    """The request side of one connection: its StreamReader, and a byte read ahead of the
    next request (the hang-up watch reads one; when it is a pipelined request's first byte,
    it must not be lost)."""

    def __init__(self, reader: asyncio.StreamReader) -> None:
        self.reader = reader
        self.ahead = b""

    async def readuntil(self, separator: bytes) -> bytes:
        if not self.ahead:
            return await self.reader.readuntil(separator)
        got, self.ahead = self.ahead, b""
        return got + await self.reader.readuntil(separator)

    async def readexactly(self, n: int) -> bytes:
        got, self.ahead = self.ahead[:n], self.ahead[n:]
        return got + (await self.reader.readexactly(n - len(got)) if n > len(got) else b"")

    async def next_request(self, timeout: float) -> bool:
        """Wait for the next request's first byte; False when the client left or stayed
        idle for ``timeout`` (the connection is then closed quietly, as idle ones are)."""
        if self.ahead:
            return True
        try:
            self.ahead = await asyncio.wait_for(self.reader.read(1), timeout)
        except (TimeoutError, ConnectionError):
            return False
        return bool(self.ahead)

    def took(self, watch: asyncio.Future[bytes]) -> bool:
        """After a response, what the hang-up watch read: nothing (it was cancelled) or a byte,
        kept for the next request, leave the client there (True); the end of the input, or an
        error, means it has gone."""
        if watch.cancelled():
            return True
        if watch.exception() is not None:
            return False
        data = watch.result()
        self.ahead += data
        return bool(data)


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


async def _flushed(writer: asyncio.StreamWriter) -> None:
    """Wait (up to FLUSH_TIMEOUT) until the kernel holds nothing unacknowledged for this
    socket, so a reset discards nothing the plan sent. Where the queue cannot be read (not
    Linux), drain() has already handed everything to the kernel, which is as far as we see."""
    sock = writer.get_extra_info("socket")
    try:
        import fcntl
        import termios

        request = termios.TIOCOUTQ  # SIOCOUTQ on a socket: bytes not yet acknowledged
        fd = sock.fileno()
    except (ImportError, AttributeError, OSError):
        return
    loop = asyncio.get_running_loop()
    deadline = loop.time() + FLUSH_TIMEOUT
    buf = bytearray(4)
    while True:
        try:
            fcntl.ioctl(fd, request, buf)
        except OSError:
            return
        if int.from_bytes(buf, "little", signed=True) <= 0 or loop.time() > deadline:
            return
        await asyncio.sleep(0.001)


def _reset(writer: asyncio.StreamWriter) -> None:
    """End the connection the way a dying upstream does: a reset (SO_LINGER on with a zero
    timeout, then close), never a clean FIN that a client could take for the end."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


def _keeps_alive(version: str, headers: dict[str, str]) -> bool:
    """HTTP/1.1 keeps the connection unless the client says ``close``; HTTP/1.0 bodies end
    with the close, so those connections always end after one answer."""
    if version != "HTTP/1.1":
        return False
    tokens = {t.strip().lower() for t in headers.get("connection", "").split(",")}
    return "close" not in tokens


def _wants_array(target: str) -> bool:
    """A Gemini stream request without ``alt=sse``: Google answers it with a JSON array."""
    dialect, _ = providers.dialect_of_path(target)
    if dialect != providers.GEMINI:
        return False
    query = target.partition("?")[2]
    return not any(k == "alt" and v == "sse" for k, v in parse_qsl(query, keep_blank_values=True))


# -- credentials -----------------------------------------------------------------------------

_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://[^/?#@:]*:)[^/?#@]*@")


def _secrets(target: str, headers: dict[str, str]) -> list[str]:
    """The credentials a request carries (auth header values and their tokens, secret-named
    query values, a URL's password), to be scrubbed from anything said about it."""
    found: list[str] = []
    for name in SECRET_HEADERS:
        value = headers.get(name, "").strip()
        if value:
            found.append(value)
            token = value.partition(" ")[2].strip()  # "Bearer KEY", "Basic ..."
            if token:
                found.append(token)
    for item in target.partition("?")[2].split("&"):
        name, eq, value = item.partition("=")
        if eq and value and _unquoted(name).strip().lower() in SECRET_PARAMS:
            found += [value, _unquoted(value)]
    m = _USERINFO.match(target)
    if m:
        found.append(target[m.end(1) : m.end() - 1])
    return sorted({s for s in found if len(s) >= MIN_SECRET}, key=len, reverse=True)


def _redact_target(target: str, secrets: list[str]) -> str:
    """The request target as it may be shown: secret-named query values and a URL's password
    replaced with [REDACTED] (as ``record`` redacts them), then any credential the request
    carried scrubbed wherever else it appears; everything else byte for byte."""
    path, sep, query = target.partition("?")
    m = _USERINFO.match(path)
    if m:
        path = m.group(1) + REDACTED + path[m.end() - 1 :]
    if sep:
        items = []
        for item in query.split("&"):
            name, eq, _ = item.partition("=")
            if eq and _unquoted(name).strip().lower() in SECRET_PARAMS:
                item = f"{name}={REDACTED}"
            items.append(item)
        query = "&".join(items)
    return _scrub(path + sep + query, secrets)


def _scrub(text: str, secrets: list[str]) -> str:
    return scrub_text(text, secrets) if secrets and text else text


def _unquoted(text: str) -> str:
    return unquote_plus(text, errors="replace")


# -- the HTTP/1.1 wire -----------------------------------------------------------------------


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


async def _read_body(conn: _Input, headers: dict[str, str]) -> bytes:
    """The request body, read whole within one READ_TIMEOUT; numbers parsed strictly (only
    digits, only hex chunk sizes, CRLF after each chunk), anything else is a bad request."""
    return await asyncio.wait_for(_body(conn, headers), READ_TIMEOUT)


async def _body(conn: _Input, headers: dict[str, str]) -> bytes:
    coding = headers.get("transfer-encoding")
    if coding is not None:
        if coding.strip().lower() != "chunked":
            raise ValueError("unsupported transfer-encoding")
        out = bytearray()
        while True:
            size_line = await conn.readuntil(b"\r\n")
            token = size_line[:-2].split(b";")[0].strip()
            if not _HEX.fullmatch(token):
                raise ValueError("bad chunk size")
            size = int(token, 16)
            if size == 0:
                await conn.readuntil(b"\r\n")
                return bytes(out)
            if len(out) + size > MAX_BODY:
                raise ValueError("request body too large")
            out += await conn.readexactly(size + 2)
            if out[-2:] != b"\r\n":
                raise ValueError("chunk not followed by CRLF")
            del out[-2:]
    raw = headers.get("content-length", "0") or "0"
    if not _DIGITS.fullmatch(raw):
        raise ValueError("bad content-length")
    length = int(raw)
    if length > MAX_BODY:
        raise ValueError("bad content-length")
    return await conn.readexactly(length) if length else b""


def tag_of(body: bytes) -> str | None:
    """The ``[sseconform:TAG]`` a request carries in its body (the first), or None."""
    m = TAG.search(body)
    return m.group(1).decode("ascii") if m else None


def _model(body: bytes) -> str | None:
    try:
        obj: Any = json.loads(body) if body else None
    except ValueError:
        return None
    model = obj.get("model") if isinstance(obj, dict) else None
    return model if isinstance(model, str) else None


def _error(message: str) -> bytes:
    return json.dumps({"error": {"message": message}}).encode()


async def _plain(
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes,
    *,
    reason: str | None = None,
    close: bool = True,
    head_only: bool = False,
) -> None:
    """A JSON answer with a length; ``close`` ends the connection after it (and says so)."""
    from http import HTTPStatus

    if reason is None:
        try:
            reason = HTTPStatus(status).phrase
        except ValueError:
            reason = "Error"
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\n"
        + ("connection: close\r\n" if close else f"keep-alive: timeout={IDLE_TIMEOUT}\r\n")
        + "\r\n"
    ).encode()
    writer.write(head if head_only else head + body)
    with contextlib.suppress(ConnectionError):
        await writer.drain()
    if close:
        writer.close()
