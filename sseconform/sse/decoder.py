"""Incremental SSE decoder that follows the WHATWG algorithm and keeps what a linter needs.

Spec: https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation

Unlike client decoders it does not hide the wire: every event carries its frame number, line
and byte offset, and everything a client might trip on (CR framing, ``data:`` without a space,
``id:`` lines, an unterminated last event, bad UTF-8, ...) is kept as an :class:`Anomaly`.
Lines are split on CR, LF and CRLF only, on bytes: ``str.splitlines`` would also split on
U+2028, which appears raw inside JSON strings.
"""

from __future__ import annotations

import re

from sseconform.sse import events
from sseconform.sse.events import Anomaly, Event

__all__ = [
    "BOM",
    "DEFAULT_MAX_EVENT",
    "DEFAULT_MAX_LINE",
    "Anomaly",
    "Event",
    "SSEDecoder",
    "decode_all",
]

BOM = b"\xef\xbb\xbf"
DEFAULT_MAX_LINE = 16 * 1024 * 1024
#: The data one event may hold across its ``data:`` lines (each line counts 64 bytes more,
#: for what keeping it costs): past it the event is dropped, so memory stays bounded.
DEFAULT_MAX_EVENT = 16 * 1024 * 1024
_LINE_COST = 64

_TERMINATORS = re.compile(rb"\r\n|\r|\n")


class SSEDecoder:
    """``feed(bytes)`` / ``finish()``: bytes in, events out; anomalies collect in a list.

    Memory holds one partial line and the current event's data, never the stream.
    """

    def __init__(
        self, *, max_line: int = DEFAULT_MAX_LINE, max_event: int = DEFAULT_MAX_EVENT
    ) -> None:
        self.max_line = max_line
        self.max_event = max_event
        self.anomalies: list[Anomaly] = []
        self._buf = b""
        self._more: list[bytes] = []  # reads that only lengthen the partial line in _buf
        self._more_len = 0
        self._started = False  # BOM decided
        self._offset = 0  # absolute offset of the first byte of self._buf
        self._line = 1  # line number of the first line in self._buf
        self._skipping = False  # dropping the rest of an over-long line
        self._skip_cr = False  # the over-long line ended in a CR at the end of a read
        self._skip_start = (0, 0)  # line and offset of the over-long line
        self._frame = 0
        self._seen_crlf = False
        self._seen_cr = False
        self._seen_nospace = False
        self._seen_fields: set[str] = set()
        self._last_id: str | None = None
        self._reset_block()

    def _reset_block(self) -> None:
        self._parts: list[bytes] = []
        self._part_pos: list[tuple[int, int, int]] = []  # (line, offset, prefix length)
        self._event: str | None = None
        self._retry: int | None = None
        self._block_line = 0
        self._block_offset = -1
        self._id_lines: list[Anomaly] = []
        self._held = 0  # data bytes (plus a cost per line) the current event holds
        self._dropped = False  # the current event went over max_event

    def position(self) -> tuple[int, int]:
        """Line number and byte offset where the next unread line starts."""
        return self._line, self._offset

    @property
    def frame(self) -> int:
        """Events read so far (dispatched or dropped): the number of the last one."""
        return self._frame

    def at_boundary(self) -> bool:
        """Between events: nothing held (no partial line, no open block, no pending CR)."""
        return (
            self._started
            and not self._buf
            and not self._parts
            and self._block_offset < 0
            and not self._skipping
            and not self._id_lines
        )

    def advance(self, nbytes: int, lines: int, frames: int) -> None:
        """Count events that were read elsewhere (the fast lanes of ``translate`` and
        ``check`` read plain ``event:``/``data:`` events themselves), so later positions and
        frame numbers stay true. Only between events (:meth:`at_boundary`)."""
        self._offset += nbytes
        self._line += lines
        self._frame += frames

    def take_anomalies(self) -> list[Anomaly]:
        """Hand over the anomalies found so far, so a long stream never piles them up."""
        out = self.anomalies
        self.anomalies = []
        return out

    # -- input ---------------------------------------------------------------------------

    def feed(self, chunk: bytes) -> list[Event]:
        """Decode the next bytes of the body; return the events they complete."""
        if not chunk:
            return []
        if self._buf and self._lengthens_line(chunk):
            return []
        if self._more:
            buf = self._joined() + chunk
        else:
            buf = self._buf + chunk if self._buf else bytes(chunk)
        if not self._started:
            if len(buf) < 3 and BOM.startswith(buf):
                self._buf = buf
                return []
            self._started = True
            if buf.startswith(BOM):
                self.anomalies.append(Anomaly(events.BOM_SEEN, 1, 0))
                buf = buf[3:]
                self._offset = 3
        if self._skipping:
            buf = self._skip_long_line(buf)
            if self._skipping:
                return []
        out: list[Event] = []
        if b"\r" in buf:
            self._buf = self._lines_general(buf, out, final=False)
        else:
            self._buf = self._lines_lf(buf, out)
        rest = self._buf
        held_cr = rest.endswith(b"\r")  # a CR kept back in case an LF follows
        if len(rest) - held_cr > self.max_line:
            self._start_skipping(rest, ended_by_cr=held_cr)
        return out

    def _lengthens_line(self, chunk: bytes) -> bool:
        """A read with no line end that only lengthens the partial line: kept as a piece, so
        a long line costs one join when it ends (or passes ``max_line``), not a copy per
        read. True when it was kept so."""
        if not self._started or self._skipping or self._buf[-1:] == b"\r":
            return False
        if b"\n" in chunk or b"\r" in chunk:
            return False
        self._more.append(chunk)
        self._more_len += len(chunk)
        if len(self._buf) + self._more_len > self.max_line:
            self._start_skipping(self._joined(), ended_by_cr=False)
        return True

    def _joined(self) -> bytes:
        """The partial line, its pieces joined; they are let go."""
        buf = self._buf + b"".join(self._more)
        self._more = []
        self._more_len = 0
        return buf

    def _start_skipping(self, rest: bytes, *, ended_by_cr: bool) -> None:
        """The partial line is over the limit: report it, drop it, and drop what follows."""
        self.anomalies.append(
            Anomaly(events.LINE_TOO_LONG, self._line, self._offset, f"over {self.max_line} bytes")
        )
        self._skip_start = (self._line, self._offset)
        self._offset += len(rest)
        self._buf = b""
        self._skipping = True
        if ended_by_cr:  # the line is over; only an LF completing a CRLF may follow
            self._line += 1
            self._skip_cr = True

    def finish(self) -> list[Event]:
        """End of body: a pending CR ends its line; an open event is discarded, as spec says."""
        out: list[Event] = []
        buf = self._joined() if self._more else self._buf
        self._buf = b""
        if not self._started and buf:
            self._started = True
            if buf.startswith(BOM):  # pragma: no cover - a body of exactly the BOM
                self.anomalies.append(Anomaly(events.BOM_SEEN, 1, 0))
                buf = buf[3:]
                self._offset = 3
        if self._skip_cr:  # an over-long line ended by a CR as the very last byte
            self._note_framing(b"\r", *self._skip_start)
            self._skip_cr = False
            self._skipping = False
        if buf.endswith(b"\r") and not self._skipping:
            self._lines_general(buf, out, final=True)
            buf = b""
        if self._parts or (not self._skipping and buf.startswith(b"data")):
            line, offset = (
                (self._block_line, self._block_offset)
                if self._block_offset >= 0
                else (self._line, self._offset)
            )
            tail = [_field_value(buf)] if buf.startswith(b"data") else []
            pending = b"\n".join(self._parts + tail)
            self.anomalies.append(
                Anomaly(events.UNTERMINATED, line, offset, pending[:40].decode("utf-8", "replace"))
            )
        self._reset_block()
        return out

    # -- line splitting --------------------------------------------------------------------

    def _skip_long_line(self, buf: bytes) -> bytes:
        """Drop bytes up to and including the terminator that ends the over-long line."""
        line0, off0 = self._skip_start
        if self._skip_cr:  # the line ended in a CR at the end of the last read
            self._skip_cr = False
            self._skipping = False
            if buf[:1] == b"\n":
                self._note_framing(b"\r\n", line0, off0)
                self._offset += 1
                return buf[1:]
            self._note_framing(b"\r", line0, off0)
            return buf
        m = _TERMINATORS.search(buf)
        if m is None:
            self._offset += len(buf)
            return b""
        term = m.group()
        self._line += 1
        if term == b"\r" and m.end() == len(buf):
            self._offset += len(buf)
            self._skip_cr = True
            return b""
        if term != b"\n":
            self._note_framing(term, line0, off0)
        self._skipping = False
        self._offset += m.end()
        return buf[m.end() :]

    def _lines_lf(self, buf: bytes, out: list[Event]) -> bytes:  # noqa: PLR0915  (a parser's hot loop: one frame per turn, inline)
        """Fast path: LF only. The last piece is a partial line, kept for the next feed.

        The common event, one ``data: `` line then a blank line, is built straight into an
        Event; everything else goes through the general field handling.
        """
        lines = buf.split(b"\n")
        rest = lines.pop()
        # the fast paths skip the limit checks: only when no line and no event here can pass them
        check_len = len(buf) > self.max_line or len(buf) + _LINE_COST > self.max_event
        n = len(lines)
        i = 0
        offset = self._offset
        line_no = self._line
        names: dict[bytes, str] = {}  # event names seen in this read, decoded once
        while i < n:
            line = lines[i]
            head = line[:6]
            # Only with no block open and no over-long line around: then a one-line data
            # event, or an event line + data line (Anthropic, Responses), is built directly.
            if head == b"data: ":
                if i + 1 < n and not lines[i + 1] and self._block_offset < 0 and not check_len:
                    try:
                        data = line[6:].decode("utf-8")
                    except UnicodeDecodeError:
                        pass
                    else:
                        self._frame += 1
                        ev = Event(data, None, self._last_id, None, self._frame, line_no, offset, 1)
                        offset += len(line) + 2
                        ev.end = offset
                        out.append(ev)
                        line_no += 2
                        i += 2
                        continue
            elif (
                head == b"event:"
                and line[6:7] == b" "
                and i + 2 < n
                and not lines[i + 2]
                and lines[i + 1][:6] == b"data: "
                and self._block_offset < 0
                and not check_len
            ):
                data_line = lines[i + 1]
                try:
                    raw_name = line[7:]
                    name = names.get(raw_name)
                    if name is None:
                        name = names[raw_name] = raw_name.decode("utf-8")
                    data = data_line[6:].decode("utf-8")
                except UnicodeDecodeError:
                    pass
                else:
                    self._frame += 1
                    ev = Event(data, name, self._last_id, None, self._frame, line_no, offset, 1)
                    offset += len(line) + len(data_line) + 3
                    ev.end = offset
                    out.append(ev)
                    line_no += 3
                    i += 3
                    continue
            self._offset = offset
            self._line = line_no
            if not line:
                if self._parts:
                    out.append(self._dispatch(offset + 1))
                elif self._dropped:
                    self._drop_event()
                elif self._block_offset >= 0:
                    self._end_empty_block()
            else:
                self._field_line(line)
            offset += len(line) + 1
            line_no += 1
            i += 1
        self._offset = offset
        self._line = line_no
        return rest

    def _lines_general(self, buf: bytes, out: list[Event], *, final: bool) -> bytes:
        """Any framing. A CR at the very end may be the first half of a CRLF: keep it."""
        pos = 0
        end = len(buf)
        for m in _TERMINATORS.finditer(buf):
            start, stop = m.span()
            if stop == end and buf[start:stop] == b"\r" and not final:
                break  # maybe CRLF split across reads
            term = buf[start:stop]
            line = buf[pos:start]
            if not line:
                if self._parts:
                    out.append(self._dispatch(self._offset + stop - pos))
                elif self._dropped:
                    self._drop_event()
                elif self._block_offset >= 0:
                    self._end_empty_block()
            else:
                self._field_line(line)
            if term != b"\n":
                self._note_framing(term, self._line, self._offset)
            self._offset += stop - pos
            self._line += 1
            pos = stop
        return buf[pos:]

    def _note_framing(self, term: bytes, line: int, offset: int) -> None:
        """CRLF and bare CR are legal but fragile: note the first of each, at its line."""
        if term == b"\r\n":
            if not self._seen_crlf:
                self._seen_crlf = True
                self.anomalies.append(Anomaly(events.CRLF, line, offset))
        elif not self._seen_cr:
            self._seen_cr = True
            self.anomalies.append(Anomaly(events.CR, line, offset))

    # -- fields ----------------------------------------------------------------------------

    def _field_line(self, line: bytes) -> None:
        if len(line) > self.max_line:
            self.anomalies.append(
                Anomaly(
                    events.LINE_TOO_LONG, self._line, self._offset, f"over {self.max_line} bytes"
                )
            )
            return
        if line[:1] == b":":
            text = self._text(line)
            self.anomalies.append(
                Anomaly(events.COMMENT, self._line, self._offset, text[1:].strip())
            )
            return
        colon = line.find(b":")
        if colon < 0:
            name, value, prefix = line, b"", len(line)
        else:
            name = line[:colon]
            value = line[colon + 1 :]
            prefix = colon + 1
            if value[:1] == b" ":
                value = value[1:]
                prefix += 1
        if self._block_offset < 0:
            self._block_line = self._line
            self._block_offset = self._offset
        if name == b"data":
            if colon >= 0 and value and prefix == colon + 1 and not self._seen_nospace:
                self._seen_nospace = True
                self.anomalies.append(
                    Anomaly(events.DATA_NO_SPACE, self._line, self._offset, "", self._frame + 1)
                )
            if self._dropped:
                return
            self._held += len(value) + _LINE_COST
            if self._held > self.max_event:
                self._dropped = True
                self._parts = []
                self._part_pos = []
                self.anomalies.append(
                    Anomaly(
                        events.EVENT_TOO_LARGE,
                        self._block_line,
                        self._block_offset,
                        f"over {self.max_event} bytes of data",
                        self._frame + 1,
                    )
                )
                return
            self._parts.append(value)
            self._part_pos.append((self._line, self._offset, prefix))
        elif name == b"event":
            self._event = self._text(line)[prefix:]
        elif name == b"id":
            text = self._text(line)[prefix:]
            if "\x00" not in text:
                self._last_id = text
            self._id_lines.append(
                Anomaly(events.ID_FIELD, self._line, self._offset, text, self._frame + 1)
            )
        elif name == b"retry":
            if value.isdigit():
                self._retry = int(value)
            self._id_lines.append(
                Anomaly(
                    events.RETRY_FIELD,
                    self._line,
                    self._offset,
                    self._text(line)[prefix:],
                    self._frame + 1,
                )
            )
        else:
            field = self._text(name)
            if field not in self._seen_fields:
                self._seen_fields.add(field)
                self.anomalies.append(
                    Anomaly(events.UNKNOWN_FIELD, self._line, self._offset, field)
                )

    def _text(self, raw: bytes) -> str:
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.anomalies.append(
                Anomaly(
                    events.INVALID_UTF8, self._line, self._offset + exc.start, _bad_bytes(raw, exc)
                )
            )
            return raw.decode("utf-8", "replace")

    # -- dispatch --------------------------------------------------------------------------

    def _end_empty_block(self) -> None:
        """A blank line ends a block that had no data: spec dispatches nothing."""
        if self._id_lines:
            first = self._id_lines[0]
            kinds = sorted({a.kind.split("-")[0] for a in self._id_lines})
            self.anomalies.append(
                Anomaly(events.ID_OR_RETRY_ONLY, first.line, first.offset, "/".join(kinds))
            )
        self._reset_block()

    def _drop_event(self) -> None:
        """An event over ``max_event`` ends: it keeps its frame number (it was on the wire),
        and nothing is dispatched; the anomaly was noted when it went over."""
        self._frame += 1
        self._reset_block()

    def _dispatch(self, end: int) -> Event:
        parts = self._parts
        raw = parts[0] if len(parts) == 1 else b"\n".join(parts)
        try:
            data = raw.decode("utf-8")
        except UnicodeDecodeError:
            data = raw.decode("utf-8", "replace")
            self._report_bad_data()
        self.anomalies.extend(self._id_lines)
        self._frame += 1
        ev = Event(
            data,
            self._event,
            self._last_id,
            self._retry,
            self._frame,
            self._block_line,
            self._block_offset,
            len(parts),
        )
        ev.end = end
        self._reset_block()
        return ev

    def _report_bad_data(self) -> None:
        for part, (line, offset, prefix) in zip(self._parts, self._part_pos, strict=True):
            try:
                part.decode("utf-8")
            except UnicodeDecodeError as exc:
                self.anomalies.append(
                    Anomaly(
                        events.INVALID_UTF8,
                        line,
                        offset + prefix + exc.start,
                        _bad_bytes(part, exc),
                        self._frame + 1,
                    )
                )


def _field_value(line: bytes) -> bytes:
    """The value of a field line, as the spec reads it (one leading space dropped)."""
    colon = line.find(b":")
    if colon < 0:
        return b""
    value = line[colon + 1 :]
    return value[1:] if value[:1] == b" " else value


def _bad_bytes(raw: bytes, exc: UnicodeDecodeError) -> str:
    return raw[exc.start : exc.end].hex(" ")


def decode_all(
    body: bytes, *, max_line: int = DEFAULT_MAX_LINE
) -> tuple[list[Event], list[Anomaly]]:
    """Decode a whole body at once; for tests and small inputs."""
    dec = SSEDecoder(max_line=max_line)
    found = dec.feed(body)
    found += dec.finish()
    return found, dec.anomalies
