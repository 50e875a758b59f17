"""``replay``: a mock upstream on loopback that serves recordings byte-exact, on schedule.

asyncio serves many clients at once; each response is executed from a Plan (see plan.py).
Connections are kept alive between requests, as real upstreams keep them and gateways pool
them (HTTP/1.1; an HTTP/1.0 client or ``connection: close`` gets its answer, then the close).
Streams are chunked, so a planned drop is a drop to every client: the response never
announced ``connection: close`` (a client may then take the end of the socket for the end of
the message), no terminating chunk follows, and the socket is reset (SO_LINGER 0), not closed.
Recordings are loaded before the server starts and looked up by name in memory: nothing in a
request ever reaches the file system.

Which recording answers a request is ``routing.Router``'s to say: the selection header, the
request's ``[sseconform:TAG]`` (``gate`` and ``load`` put one in every prompt, which every
gateway forwards, so that hundreds of requests in flight each find their own scenario), a
scenario rule, then the path (its dialect) and the model.
Faults come from the ``x-sseconform-fault`` header, the scenario rule or ``--fault``. A Gemini
request without ``alt=sse`` gets what Google sends then: the same events as a JSON array.

Nothing the server prints or answers about a request carries its credentials: secret-named
query values are redacted as ``record`` redacts them, and the values of auth headers and keys
are scrubbed from the path and every message.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import orjson

from sseconform import providers
from sseconform.recording.redact import redact_target, request_secrets, scrub_text
from sseconform.replay.answered import uncached, unthought
from sseconform.replay.faults import parse_faults, parse_split
from sseconform.replay.history import check_history, issued_of
from sseconform.replay.http11 import (
    MAX_HEAD,
    BadRequest,
    RequestHead,
    body_length,
    error_body,
    expects_continue,
    keeps_alive,
    parse_head,
    response_head,
)
from sseconform.replay.plan import ABORT, HOP_BY_HOP, WHOLE, Loaded, Plan, make_plan
from sseconform.replay.routing import (
    FAULT_HEADER,
    RequestBody,
    Router,
    streams,
    wants_array,
)
from sseconform.replay.scenario import ReplayRule
from sseconform.replay.served import Served, asked_of
from sseconform.replay.session import play
from sseconform.replay.websocket import (
    Session,
    WsMessage,
    WsTurn,
    accept_head,
    error_text,
    error_turn,
    handshake_problem,
    prewarm_turn,
    turn_of,
    wants_websocket,
)
from sseconform.replay.whole import whole_plan
from sseconform.replay.wire import (
    IDLE_TIMEOUT,
    WRITE_TIMEOUT,
    Input,
    drain,
    flushed,
    is_loopback,
    new_loop,
    plain,
    read_body,
    reset,
    sleep_until,
)
from sseconform.wires import by_dialect
from sseconform.wires.base import Asked, Issued

#: A write later than this after its schedule counts as late (the upstream falling behind).
LATE = 0.010
#: The interim answer to ``Expect: 100-continue``.
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
#: Request body bytes all connections together may hold at once: past it a request is
#: answered 503 (a hundred connections each sending MAX_BODY cannot take gigabytes).
MAX_BUFFERED = 64 * 1024 * 1024
#: The most one write puts in the transport: bounds what a slow reader's connection holds.
MAX_WRITE = 64 * 1024
READ_TIMEOUT = 30.0


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
        rules: list[ReplayRule] | None = None,
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
        #: each recording without its thinking (:meth:`shown`), made on first need
        #: each recording's answers to what a request may leave out, made once: (name,
        #: thinking shown, cache read) -> (the recording, its answer)
        self._answered: dict[tuple[str, bool, bool], tuple[Loaded, Loaded]] = {}
        self.host = host
        self.port = port
        self.split = parse_split(split)
        #: which recording answers a request (strict: only rules or the selection header)
        self.router = Router(self.recordings, parse_faults(fault), speed, rules or [], strict)
        self.log = log
        self.measure = measure
        self.served: list[Served] = []
        #: always counted, in O(1) memory: scheduled writes, those later than LATE, the worst
        self.writes = 0
        self.late_writes = 0
        self.max_late = 0.0
        self._server: asyncio.base_events.Server | None = None
        self._connections: set[asyncio.Task[Any]] = set()
        self._lock = threading.Lock()
        self._buffered = 0  # request body bytes being read, all connections together

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    is_loopback = staticmethod(is_loopback)

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
        conn = Input(reader)
        while True:
            req: RequestHead | None = None
            head = b""
            try:
                async with asyncio.timeout(READ_TIMEOUT):  # not wait_for: see wire.drain
                    head = await conn.read_head(MAX_HEAD)
                req = parse_head(head)
                if expects_continue(req.version, req.headers) and body_length(req.headers):
                    writer.write(CONTINUE)  # before the body, as the client waits for it
                    await writer.drain()
                async with asyncio.timeout(READ_TIMEOUT):
                    body = await self._read_body(conn, req)
            except BadRequest as exc:  # the framing is lost: answer, log, close
                await self._refuse(client, req or head, writer, exc.status, exc.reason)
                return
            except asyncio.LimitOverrunError:
                await self._refuse(client, req, writer, 431, "a request head over 64 KiB")
                return
            except TimeoutError:
                await self._refuse(client, req, writer, 408, "the request took too long")
                return
            except asyncio.IncompleteReadError as exc:
                if req is not None or exc.partial:  # a client that sent nothing just left
                    cut = req or head or exc.partial
                    await self._refuse(client, cut, writer, 400, "the request was cut short")
                writer.close()
                return
            except ConnectionError:
                writer.close()
                return
            if wants_websocket(req.headers) and self._websocket_path(req.target):
                with contextlib.suppress(ConnectionError, TimeoutError):
                    await self._websocket(client, req, conn, writer)
                if not writer.is_closing():
                    writer.close()
                return
            keep = keeps_alive(req.version, req.headers)
            try:
                keep = await self._respond(
                    client, req.method, req.target, req.headers, body, writer, req.version,
                    conn=conn, keep=keep,
                )  # fmt: skip
            except (ConnectionError, asyncio.CancelledError, TimeoutError):
                writer.transport.abort()
                return
            if not keep or not await conn.next_request(IDLE_TIMEOUT):
                if not writer.is_closing():
                    writer.close()
                return

    async def _read_body(self, conn: Input, req: RequestHead) -> bytes:
        """The request body (:func:`.wire.read_body`), within the server-wide MAX_BUFFERED
        (503 past it); what it held is released once it is read."""
        held = [0]  # bytes this request counts against MAX_BUFFERED
        try:
            return await read_body(conn, req, lambda n: self._reserve(n, held))
        finally:
            with self._lock:
                self._buffered -= held[0]

    def _reserve(self, n: int, held: list[int]) -> None:
        """Count ``n`` more request bytes as held, in ``held`` too (released once the body
        has been read: it is then the request's, and answered)."""
        with self._lock:
            if self._buffered + n > MAX_BUFFERED:
                raise BadRequest("too many request bytes in flight; try again", 503)
            self._buffered += n
            held[0] += n

    async def _refuse(
        self, client: str, req: RequestHead | bytes | None, writer: asyncio.StreamWriter,
        status: int, reason: str,
    ) -> None:  # fmt: skip
        """Answer a request that cannot be served with ``status`` and close; logged like
        every other answer (see :meth:`Served.refused`)."""
        body = error_body(reason)
        served = Served.refused(client, req, status, reason, len(body))
        with contextlib.suppress(ConnectionError, TimeoutError):
            await plain(writer, status, body)
        self._log(served)

    # -- requests --------------------------------------------------------------------------

    def shown(self, rec: Loaded, path: str, body: RequestBody, asked: Asked | None) -> Loaded:
        """``rec`` as the provider answers this request (``asked``: what it asks, None when
        unread): without the thinking it did not ask to see, with no cache read where it
        set no breakpoint (:mod:`.answered`; each recording's versions made once). A body
        that holds no conversation (a bare test request) gets the recording as it is."""
        if asked is None or body.obj is None:
            return rec
        wire = by_dialect(str(providers.dialect_of_path(path)[0]))
        if wire.conversation not in body.obj:
            return rec
        thinks, caches = wire.shows_thinking(body.obj, asked), wire.reads_cache(asked)
        if thinks and caches:
            return rec
        key = (rec.name, thinks, caches)
        made = self._answered.get(key)
        if made is None or made[0] is not rec:
            answer = rec if thinks else (unthought(rec) or rec)
            answer = answer if caches else (uncached(answer) or answer)
            made = self._answered[key] = (rec, answer)
        return made[1]

    @functools.cached_property
    def issued(self) -> Issued:
        """The state the served recordings hold (what a request's history may send back)."""
        return issued_of(self.recordings.values())

    def route_tag(self, tag: str, rules: list[ReplayRule]) -> None:
        """Requests carrying ``[sseconform:TAG]`` are answered by these rules alone."""
        self.router.route_tag(tag, rules)

    def served_for(self, tag: str) -> list[Served]:
        """The requests that carried ``tag``, in the order they ended."""
        with self._lock:
            return [s for s in self.served if s.tag == tag]

    @property
    def rules(self) -> list[ReplayRule]:
        """The scenario rules that choose a recording (routing.Router)."""
        return self.router.rules

    @rules.setter
    def rules(self, rules: list[ReplayRule]) -> None:
        self.router.rules = rules

    @property
    def resolve_tag(self) -> Callable[[str], list[ReplayRule] | None] | None:
        """Rules for a tag not routed yet (``load``: the tag names its scenario)."""
        return self.router.resolve_tag

    @resolve_tag.setter
    def resolve_tag(self, fn: Callable[[str], list[ReplayRule] | None] | None) -> None:
        self.router.resolve_tag = fn

    @property
    def requests_seen(self) -> int:
        """Requests routed so far."""
        return self.router.requests_seen

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
        conn: Input | None = None,
        keep: bool = False,
    ) -> bool:
        """Answer one request; whether the connection can take another."""
        loop = asyncio.get_running_loop()
        start, secrets, parsed = loop.time(), request_secrets(path, headers), RequestBody(body)
        shown, head_only, tag = redact_target(path, secrets), method == "HEAD", parsed.tag
        if method != "POST" and providers.dialect_of_path(path)[0] is not None:
            # every provider API path takes POST alone, and says so (RFC 9110 15.5.6)
            msg = f"{method} is not allowed on {shown}: it takes POST"
            served = Served(client, method, shown, None, 405, "", tag=None)
            return await self._early(writer, served, error_body(msg), keep, [("allow", "POST")])
        try:
            rec, faults, speed = self.router.choose(path, headers, parsed)
        except ValueError as exc:
            fault = scrub_text(headers.get(FAULT_HEADER, ""), secrets)
            msg = scrub_text(str(exc), secrets)
            served = Served(client, method, shown, None, 400, fault, tag=tag)
            return await self._early(writer, served, error_body(msg), keep)
        spec = scrub_text(faults.spec, secrets)
        if rec is None:
            names = ", ".join(sorted(self.recordings))
            msg = f"no recording for {method} {shown} (serving: {names})"
            served = Served(client, method, shown, None, 404, spec, tag=tag)
            return await self._early(writer, served, error_body(msg), keep)
        refusal = check_history(providers.dialect_of_path(path)[0], parsed, lambda: self.issued)
        asked = asked_of(path, parsed, headers)
        if refusal is not None:  # the state it sends back is not what was issued
            served = Served(client, method, shown, rec.name, refusal.status, spec, tag=tag)
            served.ending = f"refused: {refusal.reason}"
            if self.measure:
                served.measured(None, parsed, secrets, asked=asked)
            return await self._early(writer, served, refusal.body, keep)
        rec = self.shown(rec, path, parsed, asked)
        stream = streams(path, parsed)
        array = stream and rec.dialect == providers.GEMINI and wants_array(path)
        framing = ("json-array" if array else "sse") if stream else "json"
        if not stream:
            plan = whole_plan(rec, speed=speed, faults=faults)
        else:
            plan = make_plan(rec, speed=speed, split=self.split, faults=faults, array=array)
        served = Served(
            client, method, shown, rec.name, plan.status, spec, framing=framing, tag=tag
        )
        served.started = start
        if self.measure:
            whole = rec if not stream else None
            served.measured(plan, parsed, secrets, whole, speed, faults, asked=asked)
        try:
            return await self._execute(
                plan, writer, start, served, chunked=version != "HTTP/1.0",
                body=not head_only, conn=conn, keep=keep,
            )  # fmt: skip
        except ConnectionError:
            served.ending = "client hung up"
            raise
        except TimeoutError:
            served.ending = f"client stopped reading (no progress for {WRITE_TIMEOUT:g} s)"
            raise
        finally:  # every request is logged, however it ended
            served.seconds = loop.time() - start
            if not served.ending:
                served.ending = "stopped"
            self._log(served)

    # -- WebSocket mode (Responses) ------------------------------------------------------------

    @staticmethod
    def _websocket_path(target: str) -> bool:
        """Only the Responses path speaks WebSocket: an upgrade elsewhere is answered as
        before (404, or 405 on another provider path)."""
        return providers.dialect_of_path(target)[0] == providers.RESPONSES

    async def _websocket(
        self, client: str, req: RequestHead, conn: Input, writer: asyncio.StreamWriter
    ) -> None:
        """An upgrade on ``/v1/responses``: refused (a bad handshake, or ``ws-refuse``), or
        answered 101 and served as a :class:`.websocket.Session` until it ends; logged once
        it has, with how it ended (each turn is logged as it ends, as ``WS``)."""
        loop = asyncio.get_running_loop()
        start, secrets = loop.time(), request_secrets(req.target, req.headers)
        shown = redact_target(req.target, secrets)
        problem = handshake_problem(req)
        if problem is not None:
            status, reason, extra = problem
            served = Served(client, req.method, shown, None, status, "", framing="websocket")
            served.ending = f"refused: {reason}"
            await self._early(writer, served, error_body(reason), False, extra)
            return
        try:
            faults = self.router.upgrade_faults(req.target, req.headers)
        except ValueError as exc:
            msg = scrub_text(str(exc), secrets)
            served = Served(client, "GET", shown, None, 400, "", framing="websocket")
            served.ending = "refused: a bad fault"
            await self._early(writer, served, error_body(msg), False)
            return
        spec = scrub_text(faults.spec, secrets)
        if faults.ws_refuse is not None:
            status = faults.ws_refuse
            served = Served(client, "GET", shown, None, status, spec, framing="websocket")
            served.fire("ws-refuse", 0.0)
            served.ending = "refused: ws-refuse"
            extra = {426: [("upgrade", "websocket")], 405: [("allow", "POST")]}.get(status, [])
            msg = f"WebSocket mode refused by sseconform replay (fault ws-refuse={status})"
            await self._early(writer, served, error_body(msg), False, extra)
            return
        recorded = self.router.session_for(req.target, req.headers)
        if recorded is not None and recorded.session is not None:
            await self._recorded_session(client, req, shown, recorded, conn, writer, start)
            return
        writer.write(accept_head(req))
        await drain(writer)
        served = Served(client, "GET", shown, None, 101, spec, framing="websocket")
        served.started = start
        route = functools.partial(self._ws_turn, client, req, secrets, shown)
        session = Session(conn, writer, client, shown, route, self._log)
        try:
            await session.run()
        finally:
            served.sent = session.sent
            served.seconds = loop.time() - start
            turns = f"{session.turns} turn" + ("" if session.turns == 1 else "s")
            served.ending = f"websocket, {turns}: {session.ending or 'ended'}"
            self._log(served)

    async def _recorded_session(
        self,
        client: str,
        req: RequestHead,
        shown: str,
        rec: Loaded,
        conn: Input,
        writer: asyncio.StreamWriter,
        start: float,
    ) -> None:
        """An upgrade answered with a recorded session (:mod:`.session`): its refusal as
        recorded, or our 101 and then the recorded server's bytes, byte for byte."""
        assert rec.session is not None
        loop = asyncio.get_running_loop()
        served = Served(client, "GET", shown, rec.name, rec.status, "", framing="websocket")
        served.started = start
        try:
            if rec.status != 101:
                kept = [(k, v) for k, v in rec.headers if k.lower() not in HOP_BY_HOP]
                framing = [f"content-length: {len(rec.body)}", "connection: close"]
                writer.write(response_head(rec.status, rec.reason, kept, framing) + rec.body)
                served.sent = len(rec.body)
                served.ending = f"the recorded refusal ({rec.status})"
                await drain(writer)
                return
            writer.write(accept_head(req))
            await drain(writer)
            speed = self.router.speed
            played = await play(rec.session, conn, writer, speed, rec.t_head, loop.time)
            served.sent = played.sent
            turns = f"{played.messages} message" + ("" if played.messages == 1 else "s")
            served.ending = f"recorded websocket session, {turns} read: {played.ending}"
        finally:
            served.seconds = loop.time() - start
            if not served.ending:
                served.ending = "stopped"
            self._log(served)

    def _ws_turn(
        self, client: str, req: RequestHead, secrets: list[str], shown: str,
        obj: dict[str, Any], ids: frozenset[str],
    ) -> tuple[WsTurn, Served]:  # fmt: skip
        """One ``response.create``, routed as a POST with its fields is (without ``type``
        and ``generate``); ``previous_response_id`` must name a response this connection
        sent (the provider keeps them per socket)."""
        body = {k: v for k, v in obj.items() if k not in ("type", "generate")}
        parsed = RequestBody(orjson.dumps(body))
        path, tag = req.target, parsed.tag

        def refused(status: int, turn: WsTurn, why: str, spec: str = "") -> tuple[WsTurn, Served]:
            served = Served(client, "WS", shown, None, status, spec, framing="websocket", tag=tag)
            served.ending = f"refused: {scrub_text(why, secrets)}"
            if self.measure:
                served.measured(None, parsed, secrets)
            return turn, served

        refusal = check_history(
            providers.RESPONSES,
            parsed,
            lambda: dataclasses.replace(self.issued, response_ids=set(ids)),
        )
        if refusal is not None:
            turn = WsTurn(
                [WsMessage(0.0, error_text(refusal.status, refusal.body))], refusal.status
            )
            return refused(refusal.status, turn, refusal.reason)
        if obj.get("generate") is False:
            served = Served(client, "WS", shown, None, 200, "", framing="websocket", tag=tag)
            served.ending = "prewarm (generate: false)"
            if self.measure:
                served.measured(None, parsed, secrets)
            return prewarm_turn(obj), served
        try:
            rec, faults, speed = self.router.choose(path, req.headers, parsed)
        except ValueError as exc:
            msg = scrub_text(str(exc), secrets)
            return refused(400, error_turn(400, "invalid_request_error", msg), msg)
        spec = scrub_text(faults.spec, secrets)
        if rec is None or rec.dialect != providers.RESPONSES:
            names = ", ".join(sorted(self.recordings))
            msg = f"no Responses recording for this response.create (serving: {names})"
            return refused(404, error_turn(404, "invalid_request_error", msg), msg, spec)
        asked = asked_of(path, parsed, req.headers)
        rec = self.shown(rec, path, parsed, asked)
        turn = turn_of(rec, faults, speed)
        served = Served(
            client, "WS", shown, rec.name, turn.status, spec, framing="websocket", tag=tag
        )
        if self.measure:
            served.measured(None, parsed, secrets, asked=asked)
        return turn, served

    async def _early(
        self, writer: asyncio.StreamWriter, served: Served, body: bytes, keep: bool,
        headers: Iterable[tuple[str, str]] = (),
    ) -> bool:  # fmt: skip
        """An answer before any plan (a refusal): sent with its length, logged."""
        head = served.method == "HEAD"
        await plain(writer, served.status, body, close=not keep, head_only=head, headers=headers)
        served.sent = len(body) if not head else 0
        self._log(served)
        return keep

    async def _execute(
        self,
        plan: Plan,
        writer: asyncio.StreamWriter,
        start: float,
        served: Served,
        *,
        chunked: bool = True,
        body: bool = True,
        conn: Input | None = None,
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
                await sleep_until(loop, due)
            finally:
                waiting[0] = False

        await pause(start + plan.t_head)
        if plan.json_body:
            await plain(
                writer, plan.status, plan.body, reason=plan.reason, close=not keep,
                head_only=not body, headers=plan.headers,
            )  # fmt: skip
            for name in plan.fires if plan.form == WHOLE else ("status",):
                served.fire(name, loop.time() - start)
            served.sent = len(plan.body) if body else 0
            served.ending = "error response"
            return
        if plan.form == WHOLE:
            await self._answer(plan, writer, start, served, body, keep)
            return
        extra = ["transfer-encoding: chunked"] if chunked else []
        if keep:
            extra.append(f"keep-alive: timeout={IDLE_TIMEOUT}")
        elif plan.ending != ABORT:
            # A dying upstream never says it will close: a client that reads the end of the
            # socket as the end of a "close" message would take the drop for a clean end.
            extra.append("connection: close")
        writer.write(response_head(plan.status, plan.reason, plan.headers, extra))
        await drain(writer)
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
                self._timed_write(served, loop.time() - due, due - start, offset)
            await drain(writer)
            served.sent += len(piece)
            while marks and marks[0][0] <= offset + len(piece):
                served.fire(marks.pop(0)[1], loop.time() - start)
        if plan.ending == ABORT:
            await flushed(writer)
            if plan.cut:
                served.fire("drop", loop.time() - start)
            served.ending = "dropped"
            reset(writer)
            return
        if chunked:
            writer.write(b"0\r\n\r\n")
            await drain(writer)
        served.ending = "complete"

    async def _answer(
        self,
        plan: Plan,
        writer: asyncio.StreamWriter,
        start: float,
        served: Served,
        body: bool,
        keep: bool,
    ) -> None:
        """A non-streaming request's answer, at its time: the JSON with its length, or (no
        spans) nothing but the reset of a dropped connection; a cut answer ends in a reset."""
        loop = asyncio.get_running_loop()
        now = loop.time() - start
        for name in plan.fires:
            if name != "truncate":
                served.fire(name, now)
        if not plan.spans:
            await flushed(writer)
            if plan.cut:
                served.fire("drop", now)
            served.ending = "dropped"
            reset(writer)
            return
        extra = [f"content-length: {len(plan.payload)}"]
        if keep:
            extra.append(f"keep-alive: timeout={IDLE_TIMEOUT}")
        elif plan.ending != ABORT:
            extra.append("connection: close")
        writer.write(response_head(plan.status, plan.reason, plan.headers, extra))
        sent = plan.body if body else b""
        writer.write(sent)
        self._timed_write(served, now - plan.t_head, plan.t_head, 0)
        await drain(writer)
        served.sent = len(sent)
        if plan.ending == ABORT:
            await flushed(writer)
            served.fire("truncate", loop.time() - start)
            served.ending = "cut short"
            reset(writer)
            return
        served.ending = "complete"

    def _timed_write(self, served: Served, late: float, due: float, offset: int) -> None:
        """Count a planned write that left ``late`` seconds after its time (``due``, from the
        request's arrival), and keep it for the report when measuring."""
        self.writes += 1
        if late > LATE:
            self.late_writes += 1
        self.max_late = max(self.max_late, late)
        if self.measure:
            served.lateness.append(late)
            served.times.append((due + late, offset))

    def _log(self, served: Served) -> None:
        with self._lock:
            if self.measure:
                self.served.append(served)
        if self.log is not None:
            self.log(served.line())
