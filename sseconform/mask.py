"""Secrets masked at output time: every byte sseconform writes goes through one masker last.

Scrubbing the wire (:mod:`sseconform.recording.redact`) catches a secret as it arrives, but a
report shows text that was decoded and reassembled from many events, which no wire scrub
saw. So, as a CI runner masks its log on every output line, each writer (standard output and
error, report files, recordings, logs) passes what it writes through one :class:`Masker`
that knows every secret of the run (keys given by flag, profile or environment, values
redacted by name) in each form it can take on the way out:

- whole, in any letter case (a hex key upper-cased *is* the key; any other gives most of it
  away), each character possibly written as a JSON ``\\uXXXX`` escape, a percent escape
  (twice encoded too, as a GitHub annotation encodes ``%``), or ``\\/`` for a slash;
- base64 (standard and URL-safe) at each of its three alignments, so the key inside a longer
  base64 string (``user:key``, a whole request) is found;
- a masked echo of any shape (``sk-proj-****wxyz``, a prefix cut with ``...``): at most
  :data:`KEEP` characters of a key may show around a run of mask characters;
- a piece of a key split across events or cut short by a report: a token that ends with
  more than :data:`KEEP` characters of the key's start, begins with more than :data:`KEEP`
  of its end, or lies inside it and is :data:`MIN_SECRET` characters long; a distinct piece
  only (a digit or both cases in it, or 16 characters), since a word-like one (``stream``
  of a key ending ``-upstream``) stands in ordinary text and paths too.

Standard library only, so every layer may use it.
"""

from __future__ import annotations

import base64
import io
import os
import re
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO, TextIO, cast

__all__ = [
    "KEEP",
    "MIN_SECRET",
    "REDACTED",
    "RUN",
    "MaskStream",
    "MaskedBinary",
    "Masker",
    "environment_secrets",
    "masked_stdio",
    "open_binary",
    "open_text",
    "write_text",
]

REDACTED = "[REDACTED]"
_RED = REDACTED.encode()
#: A secret is masked wherever it appears only from this length on (a shorter one would
#: blot out ordinary words).
MIN_SECRET = 8
#: The most characters of a secret any output may show (a masked echo keeps at most these).
KEEP = 4
#: Runs of characters that stand for masked or cut-off text: ``****``, ``...``, ``…``,
#: ``•••``.
_MASK_RUN = re.compile(
    rb"[*.\xe2](?:(?<=\*)\*{2,}|(?<=\.)\.{2,}|(?<=\xe2)\x80\xa6(?:\xe2\x80\xa6)*"
    rb"|(?<=\xe2)\x80\xa2(?:\xe2\x80\xa2)+)"
)
#: Environment variable names whose values are secrets (``OPENAI_API_KEY``, ``GITHUB_TOKEN``,
#: ``SSECONFORM_GATEWAY_KEY``, ``DB_PASSWORD``).
_ENV_SECRET = re.compile(r"(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.I)


#: An ASCII character written as an escape: JSON ``\u00XX``, a percent escape (``%25XX`` when
#: the ``%`` was escaped again), JSON's ``\/``; a JSON escape quoted in JSON again (a report
#: quoting an event's raw text) has its backslash doubled.
_ESC = re.compile(  # a leading class, then the branch it chose: many times faster in re
    rb"[\\%](?:(?<=\\)\\*u00([0-7][0-9a-fA-F])|(?<=%)(?:25)?([0-7][0-9a-fA-F])|(?<=\\)\\*(/))"
)
#: The end of a write that may be the start of an escape the next write completes.
_PARTIAL_ESC = re.compile(rb"(?:\\+(?:u(?:0(?:0[0-7]?)?)?)?|%(?:2(?:5(?:[0-7])?)?|[0-7])?)\Z")
#: A mask run (or the start of one) at the very end of a write, with at most KEEP characters
#: after it.
_TRAILING_ECHO = re.compile(
    rb"(?:\*+|\.+|(?:\xe2\x80\xa6)+|(?:\xe2\x80\xa2)+|\xe2\x80?)[\w./+=-]{0,4}\Z"
)
#: Tokens longer than this are looked at only near a piece found in them.
_TOKEN_REACH = 4096


def _base64_forms(secret: bytes) -> list[bytes]:
    """The characters of ``secret``'s base64 that depend on it alone, at each of the three
    alignments it can have inside a longer base64 string, in both alphabets."""
    forms = []
    n = len(secret)
    for k in range(3):
        enc = base64.b64encode(b"\0" * k + secret + b"\0\0")
        piece = enc[-(-8 * k // 6) : (8 * k + 8 * n) // 6]
        forms += [piece, piece.replace(b"+", b"-").replace(b"/", b"_")]
    return [f for f in dict.fromkeys(forms) if len(f) >= MIN_SECRET]


@dataclass(frozen=True)
class _Compiled:
    """What the masker matches with, rebuilt whenever a secret is added (all lower case:
    the data is compared lower-cased, which keeps every byte where it was)."""

    forms: tuple[bytes, ...]  # every secret and its base64 forms, longest first
    plain: tuple[bytes, ...]  # the secrets themselves, for pieces and masked echoes
    grams: tuple[bytes, ...]  # pieces of KEEP+1 characters, one in any piece to mask
    alphabet: frozenset[int]  # the bytes secrets are made of (both cases)
    longest: int  # the longest form, escaped at every character


_EMPTY = _Compiled((), (), (), frozenset(), 0)


class Masker:
    """The secrets of a run and every form of each; thread-safe (a server thread may add
    the key a request carried while the main thread writes a report)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self._lock = threading.Lock()
        self._c = _EMPTY
        self.add_all(secrets)

    def __bool__(self) -> bool:
        return bool(self._secrets)

    @property
    def secrets(self) -> frozenset[str]:
        return frozenset(self._secrets)

    def add(self, value: str | None) -> None:
        """A secret to mask from now on; ``Bearer TOKEN`` (any scheme) adds the token too,
        and ``Basic`` credentials their decoded ``user:password`` and password."""
        self.add_all([value] if value else [])

    def add_all(self, values: Iterable[str | None]) -> None:
        new = set()
        for value in values:
            if isinstance(value, str):
                new.update(_expand(value))
        new -= self._secrets
        if not new:
            return
        with self._lock:
            self._secrets |= new
            self._c = _compile(self._secrets)

    def clear(self) -> None:
        with self._lock:
            self._secrets.clear()
            self._c = _EMPTY

    def mask(self, text: str) -> str:
        """``text`` with every form of every secret replaced by ``[REDACTED]``."""
        if not self._secrets:
            return text
        data = text.encode("utf-8", "surrogatepass")
        out = self.mask_bytes(data)
        return text if out is data else out.decode("utf-8", "surrogatepass")

    def mask_bytes(self, data: bytes) -> bytes:
        """``data`` masked (the same object when it held nothing to mask)."""
        c = self._c
        if not c.forms or not data:
            return data
        low = data.lower()
        spans = _whole(data, low, c)
        if spans:
            data = _cut(data, spans)
            low = data.lower()
        if any(g in low for g in c.grams):
            data = _pieces(data, low, c)
        # substring tests first: every full stop would start a regex attempt
        if (b"***" in data or b"..." in data or b"\xe2\x80" in data) and _MASK_RUN.search(data):
            data = _echoes(data, c)
        return data

    def hold(self, data: bytes) -> int:
        """How many bytes at the end of ``data`` could begin a secret's form (escaped or
        not) or complete a masked echo: kept back until the next write shows more."""
        c = self._c
        if not c.forms or not data:
            return 0
        base = max(0, len(data) - c.longest)
        held = 0
        partial = _PARTIAL_ESC.search(data, max(base, len(data) - 8))
        if partial is not None and partial.start() < len(data):
            held = len(data) - partial.start()
        stop = len(data) - held
        where: Sequence[int]
        if _ESC.search(data, base, stop) is None:  # nearly always: no mapping to build
            lo = max(base, stop - len(c.forms[0]))
            norm, where = data[lo:stop].lower(), range(lo, stop + 1)
        else:
            norm, where = _normal(data, base, stop)
        for f in c.forms:  # only a tail shorter than the form can be its start
            i = norm.find(f[:1], max(0, len(norm) - len(f) + 1))
            while i != -1:
                if f.startswith(norm[i:]):
                    held = max(held, len(data) - where[i])
                    break
                i = norm.find(f[:1], i + 1)
        start = len(data)
        while start > base and data[start - 1] in c.alphabet:
            start -= 1
        if start < len(data):  # a token the next write may go on with: a piece of a secret?
            token = data[start:].lower()
            if any(token in p for p in c.plain):
                held = max(held, len(data) - start)
        end = data[-KEEP - 1 :]
        echo = None
        if b"*" in end or b"." in end or b"\xe2" in end:
            echo = _TRAILING_ECHO.search(data, max(base, len(data) - 256))
        if echo is not None:
            left = _left(data.lower(), echo.start(), c.plain)
            if left:
                held = max(held, len(data) - echo.start() + left)
        return held


def _expand(value: str) -> list[str]:
    """A credential and the parts of it that are secrets on their own."""
    value = value.strip()
    scheme, _, rest = value.partition(" ")
    rest = rest.strip()
    # ``Bearer KEY``: the key is the secret (masking it masks the header value too); a
    # space kept in a secret would make its pieces swallow the words around it
    out = [value] if len(rest) < MIN_SECRET else []
    if rest:
        out.append(rest)
        if scheme.lower() == "basic":
            try:
                decoded = base64.b64decode(rest, validate=True).decode("utf-8")
            except ValueError:
                decoded = ""
            out += [decoded, decoded.partition(":")[2]]
    return [v for v in out if len(v) >= MIN_SECRET]


def _compile(secrets: set[str]) -> _Compiled:
    plain = tuple(sorted({s.encode("utf-8", "surrogatepass").lower() for s in secrets}))
    forms = set(plain)
    for s in secrets:
        forms.update(f.lower() for f in _base64_forms(s.encode("utf-8", "surrogatepass")))
    ordered = tuple(sorted(forms, key=len, reverse=True))
    # a piece the piece rules mask holds one of these: a cut start holds the first KEEP+1
    # characters, the rest of a split the last KEEP+1, and a middle piece (MIN_SECRET long
    # at least) one of those that start every KEEP characters
    n = KEEP + 1
    grams = tuple(
        {p[i : i + n] for p in plain for i in [*range(0, len(p) - KEEP, KEEP), len(p) - n]}
    )
    # what a token of the secret's kind is made of: any letter if it has one, any digit if
    # it has one, and its own punctuation (a token is a word of that kind, not just the
    # secret's own characters)
    used = {b for p in plain for b in p}
    alphabet = {b for b in used if not bytes([b]).isalnum() and not bytes([b]).isspace()}
    if any(bytes([b]).isalpha() for b in used):
        alphabet |= set(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    if any(bytes([b]).isdigit() for b in used):
        alphabet |= set(b"0123456789")
    return _Compiled(ordered, plain, grams, frozenset(alphabet), 6 * len(ordered[0]) + 6)


def _normal(data: bytes, start: int, end: int) -> tuple[bytes, list[int]]:
    """``data[start:end]`` lower-cased with ASCII escapes decoded, and where in ``data``
    each of its bytes began (one more entry: ``end``)."""
    out = bytearray()
    where: list[int] = []
    pos = start
    for m in _ESC.finditer(data, start, end):
        out += data[pos : m.start()].lower()
        where.extend(range(pos, m.start()))
        hexa = m.group(1) or m.group(2)
        out.append(int(hexa, 16) if hexa else 0x2F)
        out[-1:] = bytes(out[-1:]).lower()
        where.append(m.start())
        pos = m.end()
    out += data[pos:end].lower()
    where.extend(range(pos, end))
    where.append(end)
    return bytes(out), where


def _whole(data: bytes, low: bytes, c: _Compiled) -> list[tuple[int, int]]:
    """Where a form of a secret stands, written plainly or with escapes."""
    spans = []
    for f in c.forms:
        i = low.find(f)
        while i != -1:
            spans.append((i, i + len(f)))
            i = low.find(f, i + len(f))
    done = 0
    for m in _ESC.finditer(data):
        if m.start() < done:
            continue
        lo, hi = max(0, m.start() - c.longest), min(len(data), m.end() + c.longest)
        norm, where = _normal(data, lo, hi)
        for f in c.forms:
            i = norm.find(f)
            while i != -1:
                spans.append((where[i], where[i + len(f)]))
                i = norm.find(f, i + len(f))
        done = max(lo, hi - c.longest)
    return spans


def _cut(data: bytes, spans: list[tuple[int, int]]) -> bytes:
    """``data`` with each span (overlapping ones merged) replaced by ``[REDACTED]``."""
    out = []
    done = 0
    for a, b in sorted(spans):
        if b <= done:
            continue
        if a < done:
            a = done
        else:
            out += [data[done:a], _RED]
        done = b
    out.append(data[done:])
    return b"".join(out)


def _pieces(data: bytes, low: bytes, c: _Compiled) -> bytes:
    """Mask the tokens that hold a piece of a secret: one that ends with more than KEEP of
    its first characters (cut short), begins with more than KEEP of its last (the rest of a
    split), or lies inside it (a middle piece, MIN_SECRET long at least)."""
    found = set()
    for g in c.grams:
        i = low.find(g)
        while i != -1:
            found.add(i)
            i = low.find(g, i + 1)
    spans = []
    seen = 0
    for at in sorted(found):
        if at < seen:
            continue
        start = at
        floor = max(seen, at - _TOKEN_REACH)
        while start > floor and data[start - 1] in c.alphabet:
            start -= 1
        end = at
        ceiling = min(len(data), at + _TOKEN_REACH)
        while end < ceiling and data[end] in c.alphabet:
            end += 1
        seen = end
        for a, b in _piece_spans(data[start:end], low[start:end], c.plain):
            spans.append((start + a, start + b))
    return _cut(data, spans) if spans else data


def _piece_spans(token: bytes, low: bytes, plain: tuple[bytes, ...]) -> list[tuple[int, int]]:
    """Which parts of ``token`` (``low``: lower-cased) are pieces of a secret: the whole of
    it inside one, its end one's start, its start one's end; distinct pieces only."""
    spans = []
    for s in plain:
        if low in s and _distinct(token, MIN_SECRET):
            return [(0, len(low))]
        for k in range(min(len(s), len(low)), KEEP, -1):
            if low.endswith(s[:k]):
                if _distinct(token[-k:], KEEP + 1):
                    spans.append((len(low) - k, len(low)))
                break
        for k in range(min(len(s), len(low)), KEEP, -1):
            if low.startswith(s[-k:]):
                if _distinct(token[:k], KEEP + 1):
                    spans.append((0, k))
                break
    return spans


def _distinct(piece: bytes, least: int) -> bool:
    """Is a piece of a secret distinct enough to be masked wherever it stands? A key's
    random part is: a digit, or both cases past its first letter. A word-like piece
    (``stream`` of ``sk-replay-upstream``, ``password`` of a password) stands in ordinary
    text and paths too, and is masked only when long."""
    if len(piece) < least:
        return False
    if len(piece) >= 16 or any(48 <= b <= 57 for b in piece):
        return True
    inner = piece[1:]  # a capital first letter is a word's (``Password``), not a key's
    return inner.lower() != inner and piece.upper() != piece


def _left(low: bytes, at: int, plain: tuple[bytes, ...]) -> int:
    """How many bytes before ``at`` are the first characters of a secret (``low``: the data
    lower-cased)."""
    best = 0
    for s in plain:
        i = low.find(s[:1], max(0, at - len(s)), at)
        while i != -1:  # the earliest start that fits is the longest
            if s.startswith(low[i:at]):
                best = max(best, at - i)
                break
            i = low.find(s[:1], i + 1, at)
    return best


def _right(low: bytes, at: int, plain: tuple[bytes, ...]) -> int:
    """How many bytes from ``at`` on are the last characters of a secret."""
    best = 0
    first = low[at : at + 1]
    if not first:
        return 0
    for s in plain:
        j = s.find(first)
        while j != -1:  # the earliest place in the secret is the longest end
            if low.startswith(s[j:], at):
                best = max(best, len(s) - j)
                break
            j = s.find(first, j + 1)
    return best


def _echoes(data: bytes, c: _Compiled) -> bytes:
    """Masked echoes that show more than KEEP characters of a secret around a mask run."""
    spans = []
    low = data.lower()
    for run in _MASK_RUN.finditer(data):
        left = _left(low, run.start(), c.plain)
        right = _right(low, run.end(), c.plain)
        if left + right > KEEP:
            spans.append((run.start() - left, run.end() + right))
    return _cut(data, spans) if spans else data


class MaskStream:
    """Masks a body written in pieces: the end of a piece that could begin a secret's form
    (or a masked echo, or a piece of a split key) is held back until the next piece shows
    whether it does, so a secret cut between two writes is still masked."""

    def __init__(self, masker: Masker) -> None:
        self.masker = masker
        self._held = b""
        self.masked = 0  # pieces in which something was masked

    def feed(self, data: bytes) -> bytes:
        if not self.masker and not self._held:
            return data
        buf = self._held + data if self._held else data
        keep = self.masker.hold(buf)
        out, self._held = buf[: len(buf) - keep], buf[len(buf) - keep :] if keep else b""
        return self._mask(out)

    def finish(self) -> bytes:
        out, self._held = self._held, b""
        return self._mask(out)

    def _mask(self, data: bytes) -> bytes:
        clean = self.masker.mask_bytes(data)
        if clean is not data and clean != data:
            self.masked += 1
        return clean


class MaskedBinary(io.BufferedIOBase):
    """A binary writer that masks everything written through it before passing it on.
    ``flush`` passes on what is safe; the held tail goes out with the next write or at
    :meth:`close` (``close_target``: also close what it writes to)."""

    def __init__(self, target: BinaryIO | IO[bytes], masker: Masker, close_target: bool = True):
        super().__init__()
        self._target = target
        self._stream = MaskStream(masker)
        self._close_target = close_target

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        raw = bytes(data)
        out = self._stream.feed(raw)
        if out:
            self._target.write(out)
        return len(raw)

    def flush(self) -> None:
        if not self._target.closed:
            self._target.flush()

    def isatty(self) -> bool:
        return self._target.isatty()

    def fileno(self) -> int:
        return self._target.fileno()

    def release(self) -> None:
        """Write what was held back (the end of the output)."""
        rest = self._stream.finish()
        if rest and not self._target.closed:
            self._target.write(rest)
        self.flush()

    def close(self) -> None:
        if self.closed:
            return
        try:
            self.release()
        finally:
            if self._close_target:
                self._target.close()
            super().close()


#: The run's masker: what every writer of the command line masks with.
RUN = Masker()


def environment_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """The values of the environment's secret-named variables (``*_KEY``, ``*_TOKEN``,
    ``*_SECRET``, ``*PASSWORD``): a key exported for a provider SDK or a gateway is one a
    report must never show."""
    env = os.environ if environ is None else environ
    return [v for k, v in env.items() if _ENV_SECRET.search(k) and len(v.strip()) >= MIN_SECRET]


def open_binary(path: str | os.PathLike[str], mode: str = "wb") -> BinaryIO:
    """A file opened for writing bytes (``wb``, ``xb``), every byte masked with the run's
    masker; what it held back is written when it is closed."""
    return cast(BinaryIO, MaskedBinary(open(path, mode), RUN))


def open_text(
    path: str | os.PathLike[str], mode: str = "w", *, newline: str | None = None
) -> TextIO:
    """A UTF-8 text file opened for writing (``w``, ``x``), every byte masked."""
    return cast(
        TextIO,
        io.TextIOWrapper(
            cast(Any, open_binary(path, mode + "b")),
            encoding="utf-8",
            newline=newline,
            write_through=True,
        ),
    )


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """``Path.write_text`` through the run's masker."""
    with open_text(Path(path)) as fp:
        fp.write(text)


@contextmanager
def masked_stdio(masker: Masker | None = None) -> Iterator[None]:
    """Standard output and error through the masker for the block (the command line's
    whole run); what they held back is written when it ends."""
    m = RUN if masker is None else masker
    saved = sys.stdout, sys.stderr
    wrapped: list[tuple[io.TextIOWrapper[Any], MaskedBinary]] = []
    for name in ("stdout", "stderr"):
        stream = cast(TextIO, getattr(sys, name))
        buffer = getattr(stream, "buffer", None)
        if buffer is None:
            continue
        stream.flush()
        binary = MaskedBinary(buffer, m, close_target=False)
        text = io.TextIOWrapper(
            cast(Any, binary),
            encoding=stream.encoding or "utf-8",
            errors=stream.errors or "strict",
            line_buffering=bool(stream.line_buffering),
            write_through=True,
        )
        setattr(sys, name, text)
        wrapped.append((text, binary))
    try:
        yield
    finally:
        for text, binary in wrapped:
            try:
                text.flush()
                binary.release()
            except (OSError, ValueError):
                pass
        sys.stdout, sys.stderr = saved
