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
  of its end, or lies inside it and is :data:`MIN_SECRET` characters long (a sixteenth of
  the key, for a key longer than 80); a distinct piece only (a digit or both cases in it,
  or 16 characters), since a word-like one (``stream`` of a key ending ``-upstream``)
  stands in ordinary text and paths too.

How each form is found, in time linear in the bytes whatever escapes they hold, is
:mod:`.forms`; a secret is at most :data:`~.forms.MAX_SECRET` characters long (see there).

Standard library only, so every layer may use it.
"""

from __future__ import annotations

import io
import os
import re
import sys
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, BinaryIO, TextIO, cast

from sseconform.mask import forms
from sseconform.mask.forms import EDGE, KEEP, MAX_SECRET, MIN_SECRET, REDACTED

__all__ = [
    "EDGE",
    "KEEP",
    "MAX_SECRET",
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

#: Environment variable names whose values are secrets (``OPENAI_API_KEY``, ``GITHUB_TOKEN``,
#: ``SSECONFORM_GATEWAY_KEY``, ``DB_PASSWORD``).
_ENV_SECRET = re.compile(r"(?:^|_)(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)$", re.I)


class Masker:
    """The secrets of a run and every form of each; thread-safe (a server thread may add
    the key a request carried while the main thread writes a report)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets: set[str] = set()
        self._lock = threading.Lock()
        self._c = forms.EMPTY
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
                new.update(forms.expand(value))
        new -= self._secrets
        if not new:
            return
        with self._lock:
            self._secrets |= new
            self._c = forms.compile_forms(self._secrets)

    def clear(self) -> None:
        with self._lock:
            self._secrets.clear()
            self._c = forms.EMPTY

    def mask(self, text: str) -> str:
        """``text`` with every form of every secret replaced by ``[REDACTED]``."""
        if not self._secrets:
            return text
        data = text.encode("utf-8", "surrogatepass")
        out = self.mask_bytes(data)
        return text if out is data else out.decode("utf-8", "surrogatepass")

    def mask_bytes(self, data: bytes) -> bytes:
        """``data`` masked (the same object when it held nothing to mask)."""
        return forms.mask_bytes(data, self._c)

    def hold(self, data: bytes) -> int:
        """How many bytes at the end of ``data`` could begin a secret's form (escaped or
        not) or complete a masked echo: kept back until the next write shows more."""
        return forms.hold(data, self._c)


class MaskStream:
    """Masks a body written in pieces: the end of a piece that could begin a secret's form
    (or a masked echo, or a piece of a split key) is held back until the next piece shows
    whether it does, so a secret cut between two writes is still masked."""

    def __init__(self, masker: Masker) -> None:
        self.masker = masker
        self._held = b""
        self.masked = 0  # pieces in which something was masked

    @property
    def held(self) -> bytes:
        """The end of what was fed that is kept back (it could begin a secret)."""
        return self._held

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
