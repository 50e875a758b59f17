"""``record``: send a request, stream the answer with httpx, and keep every read as it arrives.

The file is opened before the request goes out (an existing one is never replaced unless
asked), each read is written and flushed at once with its monotonic time, and whatever stops
the stream (Ctrl-C, a dropped connection, a stall, an error) still closes the recording,
marked incomplete with the reason. A ``kill -9`` leaves a file that loads up to its last line.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import socket
import ssl
import sys
import threading
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import httpx

from sseconform import providers as prov
from sseconform.recording.bounds import (
    ACTIVE,
    DECODED,
    INTERRUPTED,
    BoundHit,
    Inflater,
    Interrupted,
    Watchdog,
)
from sseconform.recording.format import RecordingWriter, Response, open_new
from sseconform.recording.redact import Redactor, secret_header
from sseconform.sse import SSEDecoder
from sseconform.version import __version__
from sseconform.wires import carries_token


@dataclass
class Request:
    method: str
    url: str
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes | None = None


@dataclass
class Progress:
    """What the live line shows; also the summary returned at the end."""

    bytes: int = 0
    reads: int = 0
    events: int = 0
    elapsed: float = 0.0
    ttfb: float | None = None  # first body byte
    ttft: float | None = None  # first event that carries a token (text, reasoning, arguments)
    status: int | None = None
    counting_lines: bool = False  # past the first token: events counted by blank lines


@dataclass
class Outcome:
    path: str
    progress: Progress
    complete: bool
    reason: str
    redacted: list[str]
    #: ``time.monotonic()`` when the request was sent: the recording's times count from it
    started: float = 0.0
    #: the bound the peer broke, if one ended the recording: ``deadline``, ``max-bytes``,
    #: ``bomb`` (see :mod:`sseconform.recording.bounds`) or ``encoding`` (not decoded)
    bound: str | None = None

    @property
    def interrupted(self) -> bool:
        """Stopped by Ctrl-C (SIGINT)."""
        return self.reason.startswith("interrupted")

    @property
    def nothing_recorded(self) -> bool:
        """Nothing answered (and nobody stopped it): the recording would hold the request
        alone."""
        return self.progress.status is None and not self.interrupted

    @property
    def ok(self) -> bool:
        """The whole stream came, with a 2xx status."""
        status = self.progress.status
        return self.complete and status is not None and 200 <= status < 300


class Refused(Exception):
    """What ``record`` refuses before any file is made or any request sent: a bad header, an
    unreadable ``--data`` file, a URL it cannot send to, an output that is there already."""


def recording_writer(
    out: str, stored: dict[str, Any], redactor: Redactor, force: bool, transport: str = "http"
) -> RecordingWriter:
    """The recording a recorder writes: its request as stored (redacted), who wrote it and
    what was redacted, through the redactor's masker; the caller masks each read as it
    arrives (HTTP's sink scrubber, WebSocket's frames)."""
    return RecordingWriter(
        out,
        request=stored,
        extra={"tool": f"sseconform {__version__}", "redacted": redactor.found},
        force=force,
        masker=redactor.masker,
        reads_masked=True,
        transport=transport,
    )


def stored_request(req: Request, redactor: Redactor) -> dict[str, Any]:
    """The request as the recording keeps it: redacted, the body as JSON when it is JSON."""
    body: Any = None
    if req.body is not None:
        try:
            body = redactor.body(json.loads(req.body))
        except ValueError:  # a form, or text: its secret-named pairs redacted all the same
            body = redactor.text(req.body.decode("utf-8", "replace"))
    return {
        "method": req.method,
        "url": redactor.url(req.url),
        "headers": redactor.header_list(req.headers, "request"),
        "body": body,
    }


def record(
    req: Request,
    out: str,
    *,
    force: bool = False,
    stall_timeout: float | None = 60.0,
    connect_timeout: float = 30.0,
    redactor: Redactor | None = None,
    raw: str | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    on_read: Callable[[float, bytes], None] | None = None,
    on_response: Callable[[int], None] | None = None,
    client: httpx.Client | None = None,
    deadline: float | None = None,
    max_bytes: int | None = None,
) -> Outcome:
    """Record one exchange into ``out``; never raises for a network failure (see ``reason``).

    ``on_read(t, chunk)`` sees each read with its time (seconds since the request went out,
    as recorded); ``on_response(status)`` the status, before any read. ``deadline``: seconds
    the whole exchange may take, head and body, however the peer drips it; ``max_bytes``:
    the body bytes kept. A gzip or deflate body (sent though identity was asked for) is
    decoded in bounded steps and never past ``max_bytes`` or a bomb's ratio; any other
    encoding is kept as sent. A broken bound ends the recording, incomplete, and is named
    in :attr:`Outcome.bound`.
    """
    redactor = redactor or Redactor()
    stored = stored_request(req, redactor)
    writer = recording_writer(out, stored, redactor, force)  # the sink's scrubber masks reads
    try:
        # the sink's scrubber masked what goes there already
        raw_fp: IO[bytes] | None = open_new(raw, force) if raw else None
    except OSError:
        writer.close(complete=False, reason="could not open the --raw file")
        raise
    prog = Progress()
    headers = list(req.headers)
    if not any(k.lower() == "accept-encoding" for k, _ in headers):
        headers.append(("accept-encoding", "identity"))  # the body as sent, not compressed
    timeout = httpx.Timeout(connect=connect_timeout, read=stall_timeout, write=30.0, pool=30.0)
    own = client is None
    http = client or httpx.Client(
        timeout=timeout,
        follow_redirects=False,
        transport=httpx.HTTPTransport(verify=tls_context(), socket_options=NODELAY),
    )
    complete, reason, bound = False, "no response", None
    watchdog = Watchdog(deadline)
    main = threading.current_thread() is threading.main_thread()
    sink = _Sink(writer, prog, SSEDecoder(), redactor, max_bytes, time.monotonic())
    sink.raw_fp, sink.on_read, sink.on_progress = raw_fp, on_read, on_progress
    if main:
        ACTIVE.append(watchdog)
    try:
        with http.stream(
            req.method,
            req.url,
            headers=headers,
            content=req.body,
            timeout=timeout,
            extensions={"trace": watchdog.trace},
        ) as resp:
            complete, reason, bound = _receive(resp, sink, watchdog, on_response)
    except (BoundHit, Interrupted, KeyboardInterrupt, httpx.HTTPError, zlib.error) as exc:
        reason, bound = _why(exc, stall_timeout, connect_timeout)
    finally:
        watchdog.cancel()
        if main:
            ACTIVE.remove(watchdog)
        if watchdog.stopped is not None:
            complete, reason, bound = False, watchdog.stopped, None
        elif watchdog.fired:
            assert deadline is not None
            complete, bound, reason = False, *_past_deadline(sink, prog, deadline)
        prog.elapsed = time.monotonic() - sink.t0
        reason = redactor.scrub(reason)  # an error's text can hold the URL's key
        writer.close(complete=complete, reason=reason, t=prog.elapsed, redacted=redactor.found)
        if raw_fp is not None:
            raw_fp.close()
        if own:
            http.close()
    if not prog.counting_lines:
        for ev in sink.decoder.finish():
            prog.events += 1
            _ttft(prog, ev.data, prog.elapsed)
    return Outcome(out, prog, complete, reason, list(redactor.found), sink.t0, bound)


def _receive(
    resp: httpx.Response,
    sink: _Sink,
    watchdog: Watchdog,
    on_response: Callable[[int], None] | None,
) -> tuple[bool, str, str | None]:
    """The response, head then body, into the recording: (complete, reason, bound)."""
    stream = resp.extensions.get("network_stream")
    watchdog.watch(stream.get_extra_info("socket") if stream is not None else None)
    sink.prog.status = resp.status_code
    encoding = resp.headers.get("content-encoding", "identity").strip().lower()
    inflater = Inflater(encoding, sink.max_bytes) if encoding in DECODED else None
    headers = sink.redactor.header_list(resp.headers.multi_items(), "response")
    head = Response(resp.status_code, resp.reason_phrase, resp.http_version,
                    [(k, v) for k, v in headers])  # fmt: skip
    extra: dict[str, Any] = {}
    if inflater is not None:
        extra["decoded"] = encoding
    elif encoding not in ("identity", ""):
        extra["encoded"] = encoding  # kept as sent: not a stream anything can read
    sink.head_at = time.monotonic() - sink.t0
    sink.writer.response(head, t=sink.head_at, **extra)
    if on_response is not None:
        on_response(resp.status_code)
    sink.start()  # what the scrubber must know: the request's secrets and the head's
    try:
        for raw_chunk in resp.iter_raw():
            for chunk in inflater.feed(raw_chunk) if inflater else (raw_chunk,):
                sink.take(chunk)
    finally:
        sink.finish()
    if extra.get("encoded"):
        return (
            False,
            f"the body is {encoding}-encoded (identity was asked for): kept as sent",
            "encoding",
        )
    return True, "eof", None


#: Seconds without a byte before the deadline that make a stopped answer "silent", not
#: "still sending" (a peer that drips sends more often than this).
SILENT_FOR = 1.0


def _past_deadline(sink: _Sink, prog: Progress, deadline: float) -> tuple[str, str]:
    """The bound and the words for an exchange the deadline ended: still sending, or
    silent since its head (or since its last byte), and for how long."""
    now = time.monotonic() - sink.t0
    if prog.status is not None and sink.head_at is not None:
        last = sink.last_at if prog.reads else sink.head_at
        quiet = now - last
        if quiet >= SILENT_FOR:
            after = f"{prog.bytes:,} body bytes" if prog.reads else "its response head"
            return "silent", (
                f"it sent {after}, then nothing for {quiet:.1f} s, until the deadline of "
                f"{deadline:g} s"
            )
    return "deadline", f"the exchange went on past its deadline of {deadline:g} s"


def _why(exc: BaseException, stall: float | None, connect: float) -> tuple[str, str | None]:
    """Why a recording stopped early, in words, and the bound the peer broke (if one)."""
    if isinstance(exc, BoundHit):
        return exc.message, exc.kind
    if isinstance(exc, Interrupted):
        return exc.reason, None
    if isinstance(exc, KeyboardInterrupt):
        return INTERRUPTED, None
    if isinstance(exc, httpx.ReadTimeout):
        return f"stalled: no byte for {stall:g} s", None
    if isinstance(exc, httpx.ConnectTimeout):
        return f"could not connect within {connect:g} s", None
    if isinstance(exc, httpx.ConnectError):
        return f"could not connect: {exc}", None
    if isinstance(exc, httpx.RemoteProtocolError) and "Receive buffer too long" in str(exc):
        return (  # h11 refuses a response head over httpcore's 100 KiB, as a client would
            "its response head was larger than an HTTP client takes (over 100 KiB: many "
            "headers, or one huge header line); the client refused it",
            "head-too-large",
        )
    if isinstance(exc, httpx.RemoteProtocolError | httpx.ReadError):
        return f"connection dropped: {exc or type(exc).__name__}", None
    if isinstance(exc, httpx.DecodingError | zlib.error):
        return f"the body could not be decoded: {exc}", None
    return f"{type(exc).__name__}: {exc}", None


#: The request goes out at once: with Nagle's algorithm its body can wait for the server's
#: delayed ACK of its head (40 ms on Linux), which every time measured from it would carry.
NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be sent to (not http(s), not parsable, a port out of range), or
    None: said before any file is made."""
    if not url.startswith(("http://", "https://")):
        return f"{url!r} is not an http(s) URL"
    try:
        port = httpx.URL(url).port
    except (httpx.InvalidURL, ValueError) as exc:
        return f"{url!r} is not a URL httpx can send to: {exc}"
    if port is not None and not 0 < port < 65536:
        return f"{url!r}: port {port} is not from 1 to 65535"
    return None


# -- the command as a library call ------------------------------------------------------------

#: What a header's name must be: an HTTP token.
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")


def parse_header(item: str) -> tuple[str, str]:
    """``"Name: value"`` as ``record -H`` takes it: the name a token, the value printable
    ASCII (HTTP sends no other)."""
    name, sep, value = item.partition(":")
    name, value = name.strip(), value.strip()
    if not sep or not _TOKEN.fullmatch(name):
        raise Refused(f"bad header {item!r}: use 'Name: value' (the name a token)")
    if not value.isascii() or not value.isprintable():
        raise Refused(f"header {name!r}: its value must be printable ASCII (HTTP sends no other)")
    return name, value


def key_values(headers: list[tuple[str, str]]) -> list[str]:
    """The credentials among ``headers`` (every header whose name says it holds one:
    :func:`~sseconform.recording.redact.secret_header`), to keep out of messages."""
    return [v for k, v in headers if secret_header(k)]


def read_body(data: str) -> bytes:
    """``--data``: the text itself, ``@FILE``'s bytes, or ``@-``: standard input's."""
    if data == "@-":
        return sys.stdin.buffer.read()
    if data.startswith("@"):
        try:
            return Path(data[1:]).read_bytes()
        except OSError as exc:
            raise Refused(f"{data[1:]}: {exc.strerror}") from None
    return data.encode()


def apply_preset(
    provider: str,
    model: str | None,
    url: str | None,
    headers: list[tuple[str, str]],
    body: bytes | None,
    secrets: list[str],
) -> tuple[str | None, bytes | None]:
    """``--provider``: its URL unless one is given, a JSON body asked to stream, its headers
    and its key (from the environment) unless given; the URL and body to send. ``headers``
    and ``secrets`` are added to in place."""
    preset = prov.PRESETS.get(provider)
    if preset is None:
        raise Refused(f"unknown provider {provider!r}; providers: {', '.join(prov.PRESETS)}")
    if url is None:
        if "{model}" in preset.url and not model:
            raise Refused(f"--provider {provider} needs --model (it is part of the URL)")
        url = preset.url.replace("{model}", model or "")
    if body is not None:
        try:
            obj = json.loads(body)
        except ValueError:
            raise Refused("--data must be JSON with --provider") from None
        body = json.dumps(prov.prepare_body(preset.dialect, obj)).encode()
    names = {k.lower() for k, _ in headers}
    for k, v in preset.headers.items():
        if k not in names:
            headers.append((k, v))
    if preset.auth_header not in names:
        key = next((os.environ[e] for e in preset.env if os.environ.get(e)), None)
        if key is None:
            raise Refused(f"set {' or '.join(preset.env)} (or pass -H '{preset.auth_header}: ...')")
        headers.append((preset.auth_header, preset.auth_format.format(key=key)))
        secrets.append(key)
    if not any(k.lower() == "content-type" for k, _ in headers):
        headers.append(("content-type", "application/json"))
    return url, body


def make_request(
    method: str | None, url: str | None, headers: list[tuple[str, str]], body: bytes | None
) -> Request:
    """The request to send: the URL checked (:func:`url_problem`), a body sent as JSON unless
    its headers say otherwise, POST with a body and GET without unless ``method`` is given."""
    if url is None:
        raise Refused("give a URL, or --provider")
    problem = url_problem(url)
    if problem is not None:
        raise Refused(problem)
    headers = list(headers)
    if body is not None and not any(k.lower() == "content-type" for k, _ in headers):
        headers.append(("content-type", "application/json"))
    verb = (method or ("POST" if body is not None else "GET")).upper()
    return Request(verb, url, headers, body)


def build_request(
    url: str | None,
    data: str | None,
    header: list[str],
    method: str | None,
    provider: str | None,
    model: str | None,
) -> tuple[Request, list[str]]:
    """The request ``sseconform record`` sends, from its options, and the secret values in it
    (to keep them out of messages)."""
    headers = [parse_header(h) for h in header]
    body = read_body(data) if data is not None else None
    secrets = key_values(headers)
    if provider is not None:
        url, body = apply_preset(provider, model, url, headers, body, secrets)
    return make_request(method, url, headers, body), secrets


def recorded_grammar(provider: str | None, url: str) -> str | None:
    """The grammar ``record --check`` reads a recording in: the ``--provider``'s dialect, else
    the one the URL's path asks for; None when neither says (the stream's first event then
    decides, as ``check --grammar auto`` does)."""
    dialect = provider if provider is not None else prov.dialect_of_url(url)
    return prov.DIALECT_GRAMMAR.get(dialect) if dialect is not None else None


@dataclass
class RecordOptions:
    """What ``sseconform record`` is asked besides the request; every field is its option of
    the same name."""

    output: str
    raw: str | None = None  # also the plain body, here
    force: bool = False  # replace existing files
    stall_timeout: float = 60.0  # seconds without a byte; 0: no limit
    connect_timeout: float = 30.0
    deadline: float = 0.0  # seconds for the whole exchange; 0: none
    max_bytes: int = 0  # body bytes kept; 0: no cap
    redact: list[str] = field(default_factory=list)  # names redacted besides the defaults
    keep: list[str] = field(default_factory=list)  # names not redacted

    def refuse_overwrite(self) -> None:
        """Refuse (:class:`Refused`) before anything is created or sent: an existing file
        without ``force``, or ``raw`` naming the recording itself."""
        for target in (self.output, self.raw):
            if target is not None and Path(target).exists() and not self.force:
                raise Refused(f"{target}: exists (use --force to replace it)")
        if self.raw is not None and os.path.abspath(self.raw) == os.path.abspath(self.output):
            raise Refused(f"{self.raw}: --raw and --output name the same file; give two")


def run_record(
    req: Request,
    options: RecordOptions,
    *,
    on_progress: Callable[[Progress], None] | None = None,
    on_read: Callable[[float, bytes], None] | None = None,
    on_response: Callable[[int], None] | None = None,
) -> Outcome:
    """``sseconform record`` as a library call: :func:`record` with the options' bounds (0:
    none) and redaction. When nothing answered (:attr:`Outcome.nothing_recorded`), no file
    is left behind: a recording of the request alone would be no recording."""
    outcome = record(
        req,
        options.output,
        force=options.force,
        stall_timeout=options.stall_timeout if options.stall_timeout > 0 else None,
        connect_timeout=options.connect_timeout,
        deadline=options.deadline if options.deadline > 0 else None,
        max_bytes=options.max_bytes if options.max_bytes > 0 else None,
        redactor=Redactor.configured(options.redact, options.keep),
        raw=options.raw,
        on_progress=on_progress,
        on_read=on_read,
        on_response=on_response,
    )
    if outcome.nothing_recorded:
        for made in (options.output, options.raw):
            if made is not None:
                with contextlib.suppress(OSError):
                    os.unlink(made)
    return outcome


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default TLS context (certifi's CAs), made once: loading the CA bundle takes
    30-50 ms, which a gate run would otherwise pay for every scenario."""
    return httpx.create_ssl_context()


class _Sink:
    """Where each read of the body goes: scrubbed of secrets (:class:`StreamScrubber`), cut
    at ``max_bytes``, into the recording (and ``--raw``), the callbacks and the progress.

    Masking never changes what is measured: a read's time is taken as it arrives, before it
    is masked, and the bytes the scrubber held back (they could have begun a secret) are
    written with the time they arrived, not the next read's. The masker costs time linear
    in the bytes, well under what any stream sends, so it runs here, between reads: a
    thread of its own would buy no time (the GIL) and would make each read wait for it."""

    def __init__(
        self,
        writer: RecordingWriter,
        prog: Progress,
        decoder: SSEDecoder,
        redactor: Redactor,
        max_bytes: int | None,
        t0: float,
    ) -> None:
        self.writer, self.prog, self.decoder, self.redactor = writer, prog, decoder, redactor
        self.scrubber = redactor.stream()
        self.max_bytes, self.t0 = max_bytes, t0
        self.raw_fp: IO[bytes] | None = None
        self.on_read: Callable[[float, bytes], None] | None = None
        self.on_progress: Callable[[Progress], None] | None = None
        self.head_at: float | None = None  # when the response head arrived
        self.last_at = 0.0  # when the last read arrived
        self.held_at = 0.0  # when the bytes the scrubber holds back arrived

    def start(self) -> None:
        """The body begins: scrub every secret known by now (the response head's too)."""
        self.scrubber = self.redactor.stream()

    def take(self, chunk: bytes) -> None:
        """One read as it arrived; raises :class:`BoundHit` past ``max_bytes``."""
        if chunk:
            now = self.last_at = time.monotonic() - self.t0  # before any masking
            held, held_at = self.scrubber.held, self.held_at
            out = self.scrubber.feed(chunk)
            if held and out.startswith(held):  # no secret after all: they came back then
                self._keep(out[: len(held)], held_at)
                out = out[len(held) :]
            if len(self.scrubber.held) <= len(chunk):  # else the older bytes' time stays
                self.held_at = now
            self._keep(out, now)

    def finish(self) -> None:
        """Whatever the scrubber held back (the start of a secret that was not one), at
        the time it arrived."""
        self._keep(self.scrubber.finish(), self.held_at)

    def _keep(self, chunk: bytes, now: float) -> None:
        prog, cap = self.prog, self.max_bytes
        over = cap is not None and prog.bytes + len(chunk) > cap
        if cap is not None and over:
            chunk = chunk[: max(0, cap - prog.bytes)]
        if chunk:
            self.writer.read(now, chunk)
            if self.raw_fp is not None:
                self.raw_fp.write(chunk)
                self.raw_fp.flush()
            if self.on_read is not None:
                self.on_read(now, chunk)
            _count(prog, self.decoder, chunk, now)
            if self.on_progress is not None:
                self.on_progress(prog)
        if over:
            raise BoundHit("max-bytes", f"the body passed {cap:,} bytes")


def _count(prog: Progress, decoder: SSEDecoder, chunk: bytes, now: float) -> None:
    """Progress figures. Events are decoded fully until the first token is found; after that
    they are counted by their blank lines, which costs nothing at stream speed (a comment-only
    block then counts as an event too: the figure is for people, the recording is exact)."""
    prog.bytes += len(chunk)
    prog.reads += 1
    prog.elapsed = now
    if prog.ttfb is None:
        prog.ttfb = now
    if prog.ttft is not None and not prog.counting_lines:
        # Switch on a clean boundary: whatever the decoder still holds is one event at most.
        prog.counting_lines = True
        prog.events += len(decoder.finish())
    if prog.counting_lines:
        if b"\r" in chunk:
            prog.events += chunk.count(b"\r\n\r\n") + chunk.count(b"\r\r")
        else:  # nearly every stream: one scan
            prog.events += chunk.count(b"\n\n")
        return
    for ev in decoder.feed(chunk):
        prog.events += 1
        if prog.ttft is None:
            _ttft(prog, ev.data, now)
    decoder.take_anomalies()


def _ttft(prog: Progress, data: str, now: float) -> None:
    if prog.ttft is None and carries_token(data):
        prog.ttft = now
