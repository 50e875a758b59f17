"""Checking as a library: ``check_file``, ``check_bytes``, ``check_chunks``.

The command line is a thin layer over these, so a team can gate from its own test suite and
get the very diagnostics ``sseconform check`` prints.
"""

from __future__ import annotations

import os
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any
from urllib.parse import parse_qs, urlsplit

from sseconform import providers
from sseconform.baseline import Baseline, from_findings
from sseconform.errors import InputError
from sseconform.findings import Finding
from sseconform.recording.format import (
    LineSource,
    Prepend,
    RecordingError,
    RecordingReader,
    looks_like_recording,
)
from sseconform.recording.session import session_items
from sseconform.rules.base import Checker, Settings
from sseconform.rules.catalog import RULES, Severity
from sseconform.rules.chat.checker import StreamChecker
from sseconform.rules.grammars import AUTO, checker_for, detect
from sseconform.rules.shared import hooks as shared
from sseconform.rules.shared.rules.h005_error_body_shape import MAX_BODY as ERROR_BODY
from sseconform.rules.shared.rules.h005_error_body_shape import problem as error_body_problem

READ_SIZE = 256 * 1024


@dataclass(slots=True)
class FileResult:
    """What checking one input gave: its findings, or why it could not be checked."""

    path: str
    kind: str = "sse"  # "sse", "recording", or "session" (a WebSocket session's recording)
    findings: list[Finding] = field(default_factory=list)
    suppressed: dict[str, int] = field(default_factory=dict)
    bytes: int = 0
    frames: int = 0
    error: str | None = None
    grammar: str = "chat"  # the grammar it was checked against (``auto`` resolved)
    known: dict[str, int] = field(default_factory=dict)  # accepted by a baseline, per code
    fixed: list[str] = field(default_factory=list)  # baseline entries that did not happen
    #: A recording's findings: body offset -> the file's line holding that read (what a
    #: SARIF region points at; a body line is not a line of the file)
    record_lines: dict[int, int] = field(default_factory=dict)

    def count(self, severity: Severity) -> int:
        return sum(1 for d in self.findings if d.severity is severity) + sum(
            n for code, n in self.suppressed.items() if _sev(code) is severity
        )

    def ok(self, *, strict: bool = False) -> bool:
        """No error (and, with ``strict``, no warning); an unusable input is never ok."""
        if self.error is not None:
            return False
        if self.count(Severity.ERROR):
            return False
        return not (strict and self.count(Severity.WARNING))

    @property
    def codes(self) -> set[str]:
        return {d.code for d in self.findings} | set(self.suppressed)

    def failing_codes(self) -> list[str]:
        """The code of every error and warning (shown or suppressed): what a baseline keys."""
        shown = [d.code for d in self.findings if d.severity is not Severity.INFO]
        hidden = sorted(self.suppressed.items())
        return shown + [c for c, n in hidden if _sev(c) is not Severity.INFO for _ in range(n)]

    def apply(self, baseline: Baseline) -> None:
        """Take out what ``baseline`` accepts for this path (counted in ``known``, so it no
        longer fails), and note its entries for this path that did not happen (``fixed``)."""
        if self.error is not None:
            return
        keys = self.failing_codes()
        flags, self.fixed = baseline.match(self.path, keys)
        accepted = Counter(k for k, f in zip(keys, flags, strict=True) if f)
        self.known = dict(sorted(accepted.items()))
        left = Counter(accepted)
        kept = []
        for d in self.findings:
            if d.severity is not Severity.INFO and left[d.code] > 0:
                left[d.code] -= 1
                continue
            kept.append(d)
        self.findings = kept
        for code, n in left.items():  # the rest were among the suppressed ones
            if n:
                self.suppressed[code] -= n
                if not self.suppressed[code]:
                    del self.suppressed[code]


def baseline_of(results: Iterable[FileResult]) -> Baseline:
    """A check baseline accepting every error and warning of these results, per path (the
    ones a baseline already accepted included)."""
    found = {
        r.path: r.failing_codes() + [c for c, n in r.known.items() for _ in range(n)]
        for r in results
        if r.error is None
    }
    return from_findings("check", found)


def _sev(code: str) -> Severity:
    return RULES[code].severity


def check_chunks(
    chunks: Iterable[bytes],
    settings: Settings | None = None,
    *,
    path: str = "<stream>",
    grammar: str = "chat",
) -> FileResult:
    """Check a raw SSE body given as an iterable of byte chunks (any split) against
    ``grammar`` (``chat``, ``anthropic``, ``responses`` or ``auto``)."""
    it = iter(chunks)
    head: list[bytes] = []
    if grammar == AUTO:
        head = _head_of(it)
    checker = _checker(grammar, b"".join(head), settings)
    checker.feed_all(head)
    checker.feed_all(it)
    return _result(path, "sse", checker)


def check_bytes(
    data: bytes, settings: Settings | None = None, *, path: str = "<bytes>", grammar: str = "chat"
) -> FileResult:
    """Check a raw SSE body held in memory."""
    return check_chunks([data], settings, path=path, grammar=grammar)


#: ``auto`` decides on the first event: at most this many bytes are held to find it.
DETECT_BYTES = 64 * 1024


def _head_of(it: Iterator[bytes]) -> list[bytes]:
    """The first pieces of a body, up to its first blank line or DETECT_BYTES."""
    head: list[bytes] = []
    size = 0
    for piece in it:
        head.append(piece)
        size += len(piece)
        joined = b"".join(head)
        if size >= DETECT_BYTES or b"\n\n" in joined or b"\r\r" in joined:
            break
    return head


def _checker(grammar: str, head: bytes, settings: Settings | None) -> Checker:
    return checker_for(detect(head) if grammar == AUTO else grammar, settings)


def _result(path: str, kind: str, checker: Checker) -> FileResult:
    diags = checker.finish()
    return FileResult(
        path,
        kind,
        diags,
        dict(checker.suppressed),
        checker.bytes,
        checker.frames,
        grammar=checker.grammar,
    )


def check_stream(
    fp: IO[bytes], settings: Settings | None = None, *, path: str, grammar: str = "chat"
) -> FileResult:
    """Check an open binary stream: a raw body or a recording, detected from its first bytes."""
    head = fp.read(READ_SIZE)
    if looks_like_recording(head):
        return _check_recording(Prepend(head, fp), settings, path, grammar)
    checker = _checker(grammar, head, settings)
    if not head:
        return _result(path, "sse", checker)
    checker.feed(head)
    while chunk := fp.read(READ_SIZE):
        checker.feed(chunk)
    return _result(path, "sse", checker)


def check_file(
    path: str | os.PathLike[str], settings: Settings | None = None, *, grammar: str = "chat"
) -> FileResult:
    """Check one file (raw SSE body or recording); ``-`` reads standard input.

    Raises :class:`InputError` when the file cannot be checked at all.
    """
    name = os.fspath(path)
    if name == "-":
        return check_stream(sys.stdin.buffer, settings, path="<stdin>", grammar=grammar)
    p = Path(name)
    if p.is_dir():
        raise InputError("is a directory (give files, or let `check` expand it)", name)
    try:
        with open(p, "rb") as fp:
            return check_stream(fp, settings, path=name, grammar=grammar)
    except FileNotFoundError:
        raise InputError("no such file", name) from None
    except PermissionError:
        raise InputError("permission denied", name) from None
    except IsADirectoryError:
        raise InputError("is a directory", name) from None
    except RecordingError as exc:
        raise InputError(f"line {exc.line}: {exc.message}", exc.path) from None


def _check_recording(
    fp: LineSource, settings: Settings | None, path: str, grammar: str = "chat"
) -> FileResult:
    reader = RecordingReader(fp, path, by="check", websocket=True)
    if reader.transport == "websocket":
        return _check_session(reader, settings, path, grammar)
    resp = reader.response
    checker: Checker
    if resp is not None and not 200 <= resp.status < 300:
        checker = StreamChecker(settings)  # no body to grammar-check
        shared.HTTP_ERROR.fire(checker.shared, checker, resp.status)
        damaged = _read_all(reader, checker, feed=False, keep=(kept := bytearray()))
        why = error_body_problem(_answering(reader, grammar), bytes(kept))
        if why is not None and not damaged:
            shared.ERROR_BODY.fire(checker.shared, checker, resp.status, why)
        return _finish_recording(path, reader, checker, check_body=False, damaged=damaged)
    settings = _forced_by_request(reader, _resumed_by_url(reader, _whole_by_url(reader, settings)))
    if grammar == AUTO and settings is not None and settings.whole:
        grammar = "gemini"  # its URL asked Gemini's generateContent
    damage: list[RecordingError] = []
    reads = _reads(reader, damage)
    head: list[bytes] = _head_of(reads) if grammar == AUTO else []
    checker = _checker(grammar, b"".join(head), settings)
    checker.feed_all(head)
    if resp is not None and not checker.settings.whole:  # a non-streaming answer is JSON
        ctype = resp.header("content-type") or ""
        if ctype.split(";")[0].strip().lower() != "text/event-stream":
            shared.CONTENT_TYPE.fire(checker.shared, checker, ctype)
    damaged = _read_all(reader, checker, feed=True, reads=(reads, damage))
    return _finish_recording(path, reader, checker, check_body=True, damaged=damaged)


def _check_session(
    reader: RecordingReader, settings: Settings | None, path: str, grammar: str
) -> FileResult:
    """A WebSocket session (the Responses API's WebSocket mode): each turn's events in the
    Responses grammar (or the Open Responses profile), and what WebSocket adds (the
    ``websocket`` rules); a refused upgrade is an HTTP answer, checked as one."""
    from sseconform.rules.responses.session import SessionChecker

    if grammar not in (AUTO, "chat", "responses", "open-responses"):
        raise RecordingError(
            path, 1, f"a WebSocket session carries Responses events: not checked as {grammar}"
        )
    resp = reader.response
    base = type(checker_for("open-responses" if grammar == "open-responses" else "responses"))
    if resp is None or resp.status != 101:  # refused: its answer is an HTTP error's
        checker = base(settings)
        kept = bytearray()
        if resp is not None and not 200 <= resp.status < 300:
            shared.HTTP_ERROR.fire(checker.shared, checker, resp.status)
        damaged = _read_all(reader, checker, feed=False, keep=kept)
        why = error_body_problem("responses", bytes(kept))
        if resp is not None and resp.status >= 400 and why is not None and not damaged:
            shared.ERROR_BODY.fire(checker.shared, checker, resp.status, why)
        return _finish_recording(path, reader, checker, check_body=False, damaged=damaged)
    session = SessionChecker(base, settings)
    try:
        for item in session_items(reader):
            session.feed(item)
    except RecordingError as exc:
        holder = base(settings)
        shared.RECORDING_DAMAGED.fire(
            holder.shared, holder, exc.line, exc.message, reader.skip_rest(), session.bytes
        )
        session.findings += holder.finish()
    else:
        why = reader.incomplete_reason()
        if why is not None:
            holder = base(settings)
            shared.RECORDING_INCOMPLETE.fire(holder.shared, holder, why)
            session.findings += [f for f in holder.finish() if f.code[0] == "H"]
    findings = session.finish()
    result = FileResult(
        path, "session", findings, dict(session.suppressed), session.bytes, session.frames,
        grammar=session.grammar_name,
    )  # fmt: skip
    result.record_lines = {f.offset or 0: f.line for f in findings if f.line}
    return result


def _whole_by_url(reader: RecordingReader, settings: Settings | None) -> Settings | None:
    """A recording of Gemini's non-streaming call says so in its URL (``:generateContent``):
    its body is one JSON object, not a stream."""
    url = (reader.request or {}).get("url")
    if not isinstance(url, str) or (settings is not None and settings.whole):
        return settings
    return replace(settings or Settings(), whole=True) if providers.asks_whole(url) else settings


def _resumed_by_url(reader: RecordingReader, settings: Settings | None) -> Settings | None:
    """A recording of a resumed Responses stream says so in its URL (``starting_after=N``):
    its first event is number N+1 (unless the user declared otherwise)."""
    url = (reader.request or {}).get("url")
    if not isinstance(url, str) or "starting_after=" not in url:
        return settings
    try:
        values = parse_qs(urlsplit(url).query).get("starting_after", [])
    except ValueError:  # a URL urlsplit refuses (a bad IPv6 host): nothing said by it
        return settings
    if not values or not (values[0].isascii() and values[0].isdigit()) or len(values[0]) > 18:
        return settings
    base = settings or Settings()
    if base.resumed is not None or base.starting_after is not None:
        return settings
    return replace(base, resumed=True, starting_after=int(values[0]))


def _forced_by_request(reader: RecordingReader, settings: Settings | None) -> Settings | None:
    """A recording whose request forced a named function (``tool_choice`` an object of
    type ``function``, as chat and Responses write it) says so to the checker: OpenAI then
    finishes the call with ``stop``, and that is not a gateway's fault."""
    body = (reader.request or {}).get("body")
    base = settings or Settings()
    if not isinstance(body, dict) or base.forced_function is not None:
        return settings  # no request to read, or the caller said
    return replace(base, forced_function=forces_function(body))


def forces_function(body: dict[str, Any]) -> bool:
    """Does a request force a named function (``tool_choice`` an object of type
    ``function``, as chat and Responses write it)?"""
    choice = body.get("tool_choice")
    return isinstance(choice, dict) and choice.get("type") == "function"


def _answering(reader: RecordingReader, grammar: str) -> str:
    """The API whose error shape a recorded HTTP error must have: the one its request URL
    names (an upstream's recording), else the grammar it is checked in."""
    req = reader.request or {}
    url = req.get("url")
    if isinstance(url, str):
        dialect = providers.detect(b"", url)
        if dialect is not None:
            return {"openai": "chat"}.get(dialect, dialect)
    return grammar if grammar in ("anthropic", "responses", "gemini") else "chat"


def _reads(reader: RecordingReader, damage: list[RecordingError]) -> Iterator[bytes]:
    """The body's reads; a damaged line ends them, and is put in ``damage``."""
    try:
        for _t, data in reader.reads():
            yield data
    except RecordingError as exc:
        damage.append(exc)


def _read_all(
    reader: RecordingReader,
    checker: Checker,
    *,
    feed: bool,
    reads: tuple[Iterator[bytes], list[RecordingError]] | None = None,
    keep: bytearray | None = None,
) -> bool:
    """Feed every read to the checker; a damaged line ends the reading with H004 (what was
    intact is still checked), and says what is lost. True when the file was damaged.
    ``keep`` collects the body's first ERROR_BODY bytes (an HTTP error's, to read its shape)."""
    damage: list[RecordingError] = []
    it, damage = reads if reads is not None else (_reads(reader, damage), damage)
    for data in it:
        if feed:
            checker.feed(data)
        if keep is not None and len(keep) < ERROR_BODY:
            keep += data[: ERROR_BODY - len(keep)]
    if damage:
        exc = damage[0]
        after = reader.skip_rest()
        shared.RECORDING_DAMAGED.fire(
            checker.shared, checker, exc.line, exc.message, after, checker.bytes
        )
        return True
    return False


def _finish_recording(
    path: str,
    reader: RecordingReader,
    checker: Checker,
    *,
    check_body: bool,
    damaged: bool = False,
) -> FileResult:
    why = reader.incomplete_reason()
    if why is not None and not damaged:
        shared.RECORDING_INCOMPLETE.fire(checker.shared, checker, why)
    if check_body:
        return _result(path, "recording", checker)
    diags = sorted(checker.findings, key=lambda d: d.offset or 0)
    return FileResult(path, "recording", diags, dict(checker.suppressed), 0, 0)


def add_record_lines(results: Iterable[FileResult]) -> None:
    """Give each recording's findings the line of the file their read is on (``record_lines``,
    what a SARIF region points at): a second pass over each regular file with findings, so
    only the reports that need it pay for it."""
    for r in results:
        if r.kind == "recording" and r.findings and Path(r.path).is_file():
            r.record_lines = recording_lines(r.path, [d.offset or 0 for d in r.findings])


def recording_lines(path: str, offsets: Iterable[int]) -> dict[int, int]:
    """The line of the recording file holding the read each body offset is in: a second
    pass over the file, keeping only the answers (bounded by the findings, not the body).
    An offset at the body's end (a finding about the end) gets the last read's line."""
    wanted = sorted({o for o in offsets if o >= 0})
    out: dict[int, int] = {}
    if not wanted:
        return out
    try:
        with open(path, "rb") as fp:
            reader = RecordingReader(fp, path)
            pos = 0
            i = 0
            for _t, data in reader.reads():
                end = pos + len(data)
                while i < len(wanted) and wanted[i] < end:
                    out[wanted[i]] = reader.read_line
                    i += 1
                pos = end
                if i == len(wanted):
                    break
            while i < len(wanted) and reader.read_line:
                out[wanted[i]] = reader.read_line
                i += 1
    except (OSError, RecordingError):
        pass  # a damaged recording was reported (H004); its regions stay unknown
    return out


def event_bytes(path: str, offsets: Iterable[int], limit: int = 2048) -> dict[int, bytes]:
    """The bytes of the events that start at these body offsets (a recording's body, or the
    raw file), each up to the blank line that ends it and at most ``limit`` bytes: what a
    report shows beside a finding. Reads the body once, holding only those windows."""
    wanted = sorted({o for o in offsets if o >= 0})
    if not wanted or path in ("-", "<stdin>"):
        return {}
    out: dict[int, bytearray] = {}
    done: set[int] = set()
    pos = 0
    try:
        with open(path, "rb") as fp:
            head = fp.read(READ_SIZE)
            chunks: Iterator[bytes]
            if looks_like_recording(head):
                reader = RecordingReader(Prepend(head, fp), path)
                chunks = (data for _t, data in reader.reads())
            else:
                chunks = _file_chunks(head, fp)
            i = 0
            for chunk in chunks:
                end = pos + len(chunk)
                while i < len(wanted) and wanted[i] < end:
                    out[wanted[i]] = bytearray()
                    i += 1
                for start, buf in out.items():
                    if start in done or start >= end:
                        continue
                    buf += chunk[max(0, start - pos) :]
                    cut = _event_end(buf)
                    if cut is not None or len(buf) >= limit:
                        del buf[min(cut or limit, limit) :]
                        done.add(start)
                pos = end
                if i == len(wanted) and len(done) == len(out):
                    break
    except (OSError, RecordingError):
        pass  # a report without excerpts; check already said what is wrong with the file
    return {k: bytes(v[:limit]) for k, v in out.items()}


def _file_chunks(head: bytes, fp: IO[bytes]) -> Iterator[bytes]:
    yield head
    while chunk := fp.read(READ_SIZE):
        yield chunk


def _event_end(buf: bytearray) -> int | None:
    ends = [i + len(sep) for sep in (b"\r\n\r\n", b"\n\n", b"\r\r") if (i := buf.find(sep)) >= 0]
    return min(ends) if ends else None
