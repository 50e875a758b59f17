"""The recording file: exact bytes, in the reads they arrived in, with a time per read.

JSON Lines, so it can be written as bytes arrive and a crash or ``kill -9`` still leaves a
file that loads (everything up to the last whole line). Human-readable: a read that is valid
UTF-8 is stored as text, any other as base64. Lines, in order::

    {"format": "sseconform-recording", "version": 1, "created": ..., "request": {...}, ...}
    {"response": {"status": 200, "reason": "OK", "http_version": "HTTP/1.1", "headers": [...]}}
    {"t": 0.000512, "text": "data: {...}\\n\\n"}        one line per read (or "b64")
    {"end": {"complete": true, "reason": "eof", "t": 1.25}}

``t`` is seconds since the request was sent, from a monotonic clock. A file without the
``end`` line is an incomplete recording (the writer died); it still loads.

A WebSocket session (``record --transport websocket``: the Responses API's WebSocket mode)
is version 2, with ``"transport": "websocket"`` in its header. Its request is the upgrade
(a GET), its response line the answer's head (101, or the refusal), its reads every byte the
server sent after that head (frames, as they came; a refusal's body, decoded), and between
them a line per message the client sent::

    {"t": 0.0021, "sent": {"op": "text", "text": "{\\"type\\": \\"response.create\\", ...}"}}

and its end line says how the connection closed (``"close": {"by": "server", "code": 1011,
"reason": "..."}``). Why a new version, when a new header field would do for a new reader:
a version-1 reader would take the frames after a 101 for an HTTP body (and check, inspect or
replay them as SSE) or stop on a ``sent`` line with a message that names no cause. Version 2
makes each old reader refuse the file by its version on line 1. An HTTP recording is still
written as version 1, which every reader reads, and this reader reads both; a command that
does not read WebSocket sessions yet says so (:class:`RecordingReader`'s ``websocket``).
"""

from __future__ import annotations

import base64
import errno
import json
import math
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Protocol

import orjson

from sseconform.mask import RUN, Masker, MaskStream

FORMAT = "sseconform-recording"
VERSION = 1
#: A WebSocket session's version (see the module's docstring for why it is not 1).
WS_VERSION = 2
#: The transports a header may name (no ``transport``: http).
TRANSPORTS = {"http": VERSION, "websocket": WS_VERSION}
#: The message kinds a ``sent`` line holds (a WebSocket opcode's name).
SENT_OPS = ("text", "binary", "ping", "pong")
MAGIC = b'{"format": "sseconform-recording"'
#: The longest line a reader accepts. The writer's lines are one read each (a socket read is
#: at most a few hundred KiB, stored as text or base64) or a request: a longer line is not
#: a recording's, and reading it whole would cost several times its size in memory.
MAX_LINE = 32 * 1024 * 1024
#: The latest time a read may carry (seconds after the request; about eleven days): a
#: larger one would have ``replay`` and ``inspect`` wait for it.
MAX_T = 1e6
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_BAD_VALUE = re.compile(r"[\x00\r\n]")


class RecordingError(Exception):
    """A recording that cannot be read, with where it went wrong."""

    def __init__(self, path: str, line: int, message: str) -> None:
        super().__init__(f"{path}:{line}: {message}")
        self.path = path
        self.line = line
        self.message = message


@dataclass(slots=True)
class Response:
    """The HTTP response head as it arrived."""

    status: int
    reason: str = ""
    http_version: str = "HTTP/1.1"
    headers: list[tuple[str, str]] = field(default_factory=list)
    t: float | None = None  # when the head arrived, seconds since the request was sent

    def header(self, name: str) -> str | None:
        low = name.lower()
        for k, v in self.headers:
            if k.lower() == low:
                return v
        return None


@dataclass(slots=True)
class Close:
    """How a WebSocket session closed: who sent the first Close frame (``server``,
    ``client``), its code and reason; ``code`` None when the TCP connection ended without
    one."""

    by: str
    code: int | None = None
    reason: str = ""


@dataclass(slots=True)
class End:
    """How the recording stopped: ``complete`` only when the body ended normally."""

    complete: bool
    reason: str
    t: float | None = None
    close: Close | None = None  # a WebSocket session's close


@dataclass(slots=True, frozen=True)
class Sent:
    """A message the client sent in a WebSocket session: its kind (:data:`SENT_OPS`) and
    its text (a binary message's bytes, base64)."""

    op: str
    text: str


def looks_like_recording(head: bytes) -> bool:
    """True when the first bytes of a file are a recording header."""
    return head.lstrip(b"\xef\xbb\xbf").startswith(MAGIC)


class LineSource(Protocol):
    """Anything with ``readline``: an open file, or one with its first bytes already read."""

    def readline(self, size: int = -1, /) -> bytes: ...


class Prepend:
    """A read-only file that first returns bytes already read from it."""

    def __init__(self, head: bytes, fp: LineSource) -> None:
        self._head = head
        self._fp = fp

    def readline(self, size: int = -1) -> bytes:
        if self._head:
            i = self._head.find(b"\n")
            cut = i + 1 if i >= 0 else len(self._head)
            if size >= 0:
                cut = min(cut, size)
            line, self._head = self._head[:cut], self._head[cut:]
            if line.endswith(b"\n") or self._head or (size >= 0 and len(line) >= size):
                return line
            return line + self._fp.readline(size - len(line) if size >= 0 else -1)
        return self._fp.readline(size)


class RecordingReader:
    """Streams a recording's reads without loading the file; header read up front.

    A WebSocket session is read only by a reader made with ``websocket=True`` (one that
    knows what its reads are); any other refuses it on line 1, naming ``by`` (the command
    that reads it) in its message, so each command says plainly it does not read them yet.
    """

    def __init__(
        self,
        fp: LineSource,
        path: str = "<recording>",
        *,
        websocket: bool = False,
        by: str = "this command",
    ) -> None:
        self._fp = fp
        self.path = path
        self._lineno = 0
        self.read_line = 0
        self.response: Response | None = None
        self.end: End | None = None
        self.truncated_line: int | None = None
        first = self._next_obj()
        if first is None or first.get("format") != FORMAT:
            raise RecordingError(path, 1, "not a sseconform recording (no header line)")
        version = first.get("version")
        if version not in TRANSPORTS.values():
            raise RecordingError(path, 1, f"unsupported recording version {version!r}")
        transport = first.get("transport", "http")
        if TRANSPORTS.get(transport) != version:
            raise RecordingError(
                path, 1, f"version {version!r} with transport {transport!r}: not a recording's"
            )
        self.transport: str = transport
        if transport == "websocket" and not websocket:
            raise RecordingError(path, 1, f"a WebSocket recording: not supported by {by} yet")
        try:  # what translate copies into its output must encode again
            orjson.dumps(first)
        except orjson.JSONEncodeError as exc:
            raise RecordingError(
                path, 1, f"the header line cannot be written back ({exc})"
            ) from None
        self.header: dict[str, Any] = first
        self._pending: dict[str, Any] | None = self._next_obj()
        if self._pending is not None and "response" in self._pending:
            self.response = _response(self._pending["response"], path, self._lineno)
            self._pending = self._next_obj()

    @property
    def request(self) -> dict[str, Any] | None:
        req = self.header.get("request")
        return req if isinstance(req, dict) else None

    def _next_obj(self) -> dict[str, Any] | None:
        raw = self._fp.readline(MAX_LINE + 1)
        if not raw:
            return None
        self._lineno += 1
        if len(raw) > MAX_LINE:
            raise RecordingError(self.path, self._lineno, f"a line longer than {MAX_LINE:,} bytes")
        if not raw.endswith(b"\n"):
            # The writer died mid-line: everything before it is intact.
            self.truncated_line = self._lineno
            return None
        try:
            obj = json.loads(raw, parse_constant=_no_constant)
        except ValueError as exc:
            raise RecordingError(self.path, self._lineno, f"not a JSON line ({exc})") from None
        except RecursionError:
            raise RecordingError(self.path, self._lineno, "a line is nested too deeply") from None
        if not isinstance(obj, dict):
            raise RecordingError(self.path, self._lineno, "a line is not a JSON object")
        return obj

    def reads(self) -> Iterator[tuple[float, bytes]]:
        """Yield ``(t, bytes)`` per read, in order; sets :attr:`end` when it sees it. A
        WebSocket session's ``sent`` lines are passed over (:meth:`session` yields them)."""
        for t, item in self.session():
            if isinstance(item, bytes):
                yield t, item

    def session(self) -> Iterator[tuple[float, bytes | Sent]]:
        """Yield ``(t, bytes)`` per read and ``(t, Sent)`` per message the client sent (a
        WebSocket session's), in the file's order; sets :attr:`end` when it sees it."""
        obj = self._pending
        self._pending = None
        while obj is not None:
            line = self._lineno
            if "end" in obj:
                e = obj["end"]
                if not isinstance(e, dict):
                    raise RecordingError(self.path, line, "bad end line")
                self.end = End(bool(e.get("complete")), str(e.get("reason", "")), _time(e.get("t")))
                if self.transport == "websocket" and e.get("close") is not None:
                    self.end.close = _close(e["close"], self.path, line)
                if self._next_obj() is not None:
                    raise RecordingError(self.path, self._lineno, "data after the end line")
                return
            t = _time(obj.get("t"))
            if t is None:
                raise RecordingError(
                    self.path, line, f'a read line needs "t": a number from 0 to {MAX_T:g}'
                )
            self.read_line = line  # the file's line the read about to be yielded is on
            if "sent" in obj and self.transport == "websocket":
                yield t, _sent(obj["sent"], self.path, line)
            elif "text" in obj and isinstance(obj["text"], str):
                try:
                    data = obj["text"].encode("utf-8")
                except UnicodeEncodeError:
                    raise RecordingError(
                        self.path, line, "a read's text is not valid Unicode (a lone surrogate)"
                    ) from None
                yield t, data
            elif "b64" in obj and isinstance(obj["b64"], str):
                try:
                    yield t, base64.b64decode(obj["b64"], validate=True)
                except ValueError:
                    raise RecordingError(self.path, line, "bad base64 in a read") from None
            else:
                raise RecordingError(self.path, line, 'a read line has neither "text" nor "b64"')
            obj = self._next_obj()

    def skip_rest(self) -> int:
        """After a damaged line: how many lines follow it (read, not parsed)."""
        n = 0
        while self._fp.readline():
            n += 1
        return n

    @property
    def complete(self) -> bool:
        return self.end is not None and self.end.complete

    def incomplete_reason(self) -> str | None:
        """Why the recording is not whole, once :meth:`reads` is exhausted; None if it is."""
        if self.end is None:
            if self.truncated_line is not None:
                return f"the file ends inside line {self.truncated_line} (writer stopped)"
            return "no end line (the recorder stopped before finishing)"
        if not self.end.complete:
            return self.end.reason or "marked incomplete"
        return None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _time(t: Any) -> float | None:
    """A read's or head's time, if it is one: a finite number of seconds from 0 to MAX_T
    (bool is an int in Python, not a time)."""
    if type(t) is not int and type(t) is not float:
        return None
    if type(t) is int and not 0 <= t <= MAX_T:
        return None
    t = float(t)
    return t if math.isfinite(t) and 0 <= t <= MAX_T else None


def _sent(obj: Any, path: str, line: int) -> Sent:
    """A ``sent`` line's message: an op from :data:`SENT_OPS` and its text (valid Unicode)."""
    if not isinstance(obj, dict) or obj.get("op") not in SENT_OPS:
        raise RecordingError(path, line, f'a sent line needs "op": one of {", ".join(SENT_OPS)}')
    text = obj.get("text")
    if not isinstance(text, str) or _surrogate(text):
        raise RecordingError(path, line, 'a sent line needs "text": a string of valid Unicode')
    return Sent(obj["op"], text)


def _close(obj: Any, path: str, line: int) -> Close:
    """An end line's ``close``: who closed (server or client), the code (1000-4999 or
    null), the reason."""
    if not isinstance(obj, dict) or obj.get("by") not in ("server", "client"):
        raise RecordingError(path, line, 'bad close in the end line: "by" is server or client')
    code = obj.get("code")
    if code is not None and (type(code) is not int or not 1000 <= code <= 4999):
        raise RecordingError(path, line, f"bad close in the end line: code {code!r}")
    return Close(obj["by"], code, str(obj.get("reason") or ""))


def _response(obj: Any, path: str, line: int) -> Response:
    """The response head, as HTTP/1.1 allows it: a status from 100 to 599, a reason phrase
    and header values without CR, LF or NUL, header names that are tokens (``replay`` writes
    them onto the wire, so a recording must not be able to split a response)."""

    def bad(why: str) -> RecordingError:
        return RecordingError(path, line, f"bad response line: {why}")

    if not isinstance(obj, dict) or type(obj.get("status")) is not int:
        raise bad("no integer status")
    if not 100 <= obj["status"] <= 599:
        raise bad(f"status {obj['status']} is not from 100 to 599")
    raw = obj.get("headers", [])
    if not isinstance(raw, list) or not all(
        isinstance(h, list) and len(h) == 2 and all(isinstance(x, str) for x in h) for h in raw
    ):
        raise bad("headers must be [name, value] pairs")
    for k, v in raw:
        if not _TOKEN.fullmatch(k):
            raise bad(f"header name {k!r} is not an HTTP token")
        if _BAD_VALUE.search(v):
            raise bad(f"header {k!r} holds CR, LF or NUL")
    reason = str(obj.get("reason", ""))
    if _BAD_VALUE.search(reason):
        raise bad("the reason phrase holds CR, LF or NUL")
    if any(_surrogate(x) for x in [reason, *(x for h in raw for x in h)]):
        raise bad("text that is not valid Unicode (a lone surrogate)")
    return Response(
        obj["status"], reason, str(obj.get("http_version", "")), [(k, v) for k, v in raw],
        _time(obj.get("t")),
    )  # fmt: skip


def _surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def open_new(path: str | os.PathLike[str], force: bool = False) -> IO[bytes]:
    """A file made for writing bytes: a new one, or with ``force`` one that replaces what is
    there, never through a symlink. A symlink at ``path`` (one left in a reused ``--out``
    folder, say) is itself replaced and the file it points to left as it was: a forced
    write must not overwrite whatever a link names."""
    if not force:
        return open(path, "xb")  # O_EXCL: refuses any name that is there, a link too
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if exc.errno != errno.ELOOP and not os.path.islink(path):
            raise
        os.unlink(path)  # the link, never what it names
        fd = os.open(path, flags | os.O_EXCL, 0o666)
    return os.fdopen(fd, "wb")


def _masked(obj: Any, masker: Masker) -> Any:
    """``obj`` with every string in it (keys too) masked: a head line stays valid JSON."""
    if not masker:
        return obj
    if isinstance(obj, str):
        return masker.mask(obj)
    if isinstance(obj, dict):
        return {_masked(k, masker): _masked(v, masker) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_masked(v, masker) for v in obj]
    return obj


class RecordingWriter:
    """Writes a recording line by line, flushed per read, so nothing received is ever lost.

    Refuses to replace an existing file unless ``force`` is set, and never writes through a
    symlink (:func:`open_new`). Everything it writes goes
    through ``masker`` first (the run's, :data:`sseconform.mask.RUN`, by default): the head
    and end lines whole, the reads as a stream, so a secret split between two reads is still
    masked (a read's held-back end goes out with the next read, at that read's time);
    ``reads_masked``: the caller has masked the reads already.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        request: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
        force: bool = False,
        masker: Masker | None = None,
        reads_masked: bool = False,
        transport: str = "http",
    ) -> None:
        self.path = Path(path)
        self._masker = RUN if masker is None else masker
        # reads the caller masked with this masker already (``record``'s redactor, as they
        # arrive) are written as they come: the hot path masks once
        self._reads = MaskStream(Masker() if reads_masked else self._masker)
        self._t = 0.0
        self._fp: IO[bytes] = open_new(self.path, force)
        header: dict[str, Any] = {
            "format": FORMAT,
            "version": TRANSPORTS[transport],
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "request": request,
        }
        if transport != "http":
            header["transport"] = transport
        if extra:
            header.update(extra)
        self._line(header)
        self.closed = False

    def _line(self, obj: dict[str, Any]) -> None:
        line = json.dumps(_masked(obj, self._masker), ensure_ascii=False).encode("utf-8")
        self._fp.write(line + b"\n")
        self._fp.flush()

    def response(self, resp: Response, *, t: float | None = None, **extra: Any) -> None:
        """The response head; ``t`` is when it arrived (seconds since the request was sent)."""
        line: dict[str, Any] = {
            "status": resp.status,
            "reason": resp.reason,
            "http_version": resp.http_version,
            "headers": [list(h) for h in resp.headers],
        }
        if t is not None:
            line["t"] = round(t, 6)
        line.update(extra)
        self._line({"response": line})

    def read(self, t: float, data: bytes) -> None:
        """One read, as one line, flushed at once. orjson writes the same bytes json.dumps
        would (the time keeps json's repr form); it is the hot path of ``record``."""
        self._t = t
        out = self._reads.feed(data)
        if out or not data:  # an empty read is kept as it came
            self._write_read(t, out)

    def sent(self, t: float, op: str, text: str) -> None:
        """A message the client sent (a WebSocket session's), masked as a head line is."""
        self._line({"t": round(t, 6), "sent": {"op": op, "text": text}})

    def _write_read(self, t: float, data: bytes) -> None:
        stamp = repr(round(t, 6)).encode()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            b64 = base64.b64encode(data)
            line = b'{"t": %b, "b64": "%b"}\n' % (stamp, b64)
        else:
            line = b'{"t": %b, "text": %b}\n' % (stamp, orjson.dumps(text))
        self._fp.write(line)
        self._fp.flush()

    def close(
        self, *, complete: bool = True, reason: str = "eof", t: float | None = None, **extra: Any
    ) -> None:
        if self.closed:
            return
        held = self._reads.finish()
        if held:
            self._write_read(self._t, held)
        end: dict[str, Any] = {"complete": complete, "reason": reason}
        if t is not None:
            end["t"] = round(t, 6)
        end.update(extra)
        self._line({"end": end})
        self._fp.close()
        self.closed = True


def write_recording(
    path: str | os.PathLike[str],
    reads: list[tuple[float, bytes]],
    *,
    response: Response | None = None,
    request: dict[str, Any] | None = None,
    force: bool = False,
) -> None:
    """Write a whole recording at once (fixtures, translations)."""
    w = RecordingWriter(path, request=request, force=force)
    if response is not None:
        w.response(response, t=response.t)
    for t, data in reads:
        w.read(t, data)
    w.close(t=reads[-1][0] if reads else 0.0)
