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
"""

from __future__ import annotations

import base64
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any, Protocol

import orjson

FORMAT = "sseconform-recording"
VERSION = 1
MAGIC = b'{"format": "sseconform-recording"'


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
class End:
    """How the recording stopped: ``complete`` only when the body ended normally."""

    complete: bool
    reason: str
    t: float | None = None


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
            if i >= 0:
                line, self._head = self._head[: i + 1], self._head[i + 1 :]
                return line
            line, self._head = self._head, b""
            return line + self._fp.readline()
        return self._fp.readline()


class RecordingReader:
    """Streams a recording's reads without loading the file; header read up front."""

    def __init__(self, fp: LineSource, path: str = "<recording>") -> None:
        self._fp = fp
        self.path = path
        self._lineno = 0
        self.response: Response | None = None
        self.end: End | None = None
        self.truncated_line: int | None = None
        first = self._next_obj()
        if first is None or first.get("format") != FORMAT:
            raise RecordingError(path, 1, "not a sseconform recording (no header line)")
        version = first.get("version")
        if version != VERSION:
            raise RecordingError(path, 1, f"unsupported recording version {version!r}")
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
        raw = self._fp.readline()
        if not raw:
            return None
        self._lineno += 1
        if not raw.endswith(b"\n"):
            # The writer died mid-line: everything before it is intact.
            self.truncated_line = self._lineno
            return None
        try:
            obj = json.loads(raw)
        except ValueError as exc:
            raise RecordingError(self.path, self._lineno, f"not a JSON line ({exc})") from None
        except RecursionError:
            raise RecordingError(self.path, self._lineno, "a line is nested too deeply") from None
        if not isinstance(obj, dict):
            raise RecordingError(self.path, self._lineno, "a line is not a JSON object")
        return obj

    def reads(self) -> Iterator[tuple[float, bytes]]:
        """Yield ``(t, bytes)`` per read, in order; sets :attr:`end` when it sees it."""
        obj = self._pending
        self._pending = None
        while obj is not None:
            line = self._lineno
            if "end" in obj:
                e = obj["end"]
                if not isinstance(e, dict):
                    raise RecordingError(self.path, line, "bad end line")
                self.end = End(bool(e.get("complete")), str(e.get("reason", "")), e.get("t"))
                if self._next_obj() is not None:
                    raise RecordingError(self.path, self._lineno, "data after the end line")
                return
            t = obj.get("t")
            if type(t) is not int and type(t) is not float:  # bool is an int: not a time
                raise RecordingError(self.path, line, 'a read line has no number "t"')
            if type(t) is int and not -(2**53) < t < 2**53:
                raise RecordingError(self.path, line, 'a read line\'s "t" is out of range')
            if "text" in obj and isinstance(obj["text"], str):
                yield float(t), obj["text"].encode("utf-8")
            elif "b64" in obj and isinstance(obj["b64"], str):
                try:
                    yield float(t), base64.b64decode(obj["b64"], validate=True)
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


def _response(obj: Any, path: str, line: int) -> Response:
    if not isinstance(obj, dict) or type(obj.get("status")) is not int:
        raise RecordingError(path, line, "bad response line: no integer status")
    raw = obj.get("headers", [])
    if not isinstance(raw, list) or not all(
        isinstance(h, list) and len(h) == 2 and all(isinstance(x, str) for x in h) for h in raw
    ):
        raise RecordingError(path, line, "bad response line: headers must be [name, value] pairs")
    headers = [(k, v) for k, v in raw]
    t = obj.get("t")
    return Response(
        obj["status"],
        str(obj.get("reason", "")),
        str(obj.get("http_version", "")),
        headers,
        float(t) if isinstance(t, float) or (type(t) is int and -(2**53) < t < 2**53) else None,
    )


class RecordingWriter:
    """Writes a recording line by line, flushed per read, so nothing received is ever lost.

    Refuses to replace an existing file unless ``force`` is set.
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        request: dict[str, Any] | None = None,
        extra: dict[str, Any] | None = None,
        force: bool = False,
    ) -> None:
        self.path = Path(path)
        self._fp: IO[bytes] = open(self.path, "wb" if force else "xb")  # noqa: SIM115
        header: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "created": datetime.now(UTC).isoformat(timespec="seconds"),
            "request": request,
        }
        if extra:
            header.update(extra)
        self._line(header)
        self.closed = False

    def _line(self, obj: dict[str, Any]) -> None:
        self._fp.write(json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n")
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
