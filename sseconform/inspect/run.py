"""Feeding a view: a recording at its timing, a pipe as it arrives, and the live screen.

The screen is a rich ``Live`` refreshed by its own thread at most :data:`FPS` times a second,
whatever the stream's rate: the feeding side never draws, so a fast stream costs the CPU the
same 20 redraws a second as a slow one, and a stalled one still shows the clock moving.
"""

from __future__ import annotations

import contextlib
import os
import select
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import IO

from rich.console import Console, RenderableType
from rich.live import Live

from sseconform import providers
from sseconform.errors import InputError
from sseconform.inspect.render import SUMMARY, Budget, render
from sseconform.inspect.state import StreamView
from sseconform.mask import open_text
from sseconform.recording.format import (
    Prepend,
    RecordingError,
    RecordingReader,
    looks_like_recording,
)
from sseconform.recording.session import turn_events

__all__ = ["FPS", "Recording", "live_screen", "open_recording", "play", "pump"]

#: Redraws per second at most.
FPS = 20
READ_SIZE = 64 * 1024
#: How often a waiting reader wakes up to let the clock move.
POLL = 0.05


class Recording:
    """A recording opened for playing: its response line, then its reads, streamed. A
    WebSocket session plays one turn (``turn``, from 1): its answer as the SSE stream it
    would be over HTTP, timed from its ``response.create``."""

    def __init__(self, reader: RecordingReader, turn: int = 1) -> None:
        self.reader = reader
        self.turn = turn
        self.session = reader.transport == "websocket"
        resp = reader.response
        self.status = resp.status if resp is not None else None
        if self.session and self.status == 101:
            self.status = 200  # the socket answers each turn with a stream
        self._turns: list[int] = []

    @property
    def whole(self) -> bool:
        """Its URL asked Gemini's non-streaming call (``:generateContent``): one object."""
        url = (self.reader.request or {}).get("url")
        return isinstance(url, str) and providers.asks_whole(url)

    @property
    def dialect(self) -> str | None:
        """A session's answers are Responses events, whatever the URL says."""
        return "responses" if self.session else None

    def reads(self) -> Iterator[tuple[float, bytes]]:
        try:
            if self.session and self.status == 200:
                yield from turn_events(self.reader, self.turn, self._turns)
                if self._turns and self._turns[0] < self.turn:
                    raise InputError(
                        f"turn {self.turn}: the session has {self._turns[0]} turn(s)",
                        self.reader.path,
                    )
            else:
                yield from self.reader.reads()
        except RecordingError as exc:
            raise InputError(f"line {exc.line}: {exc.message}", exc.path) from None

    def outcome(self) -> tuple[bool, str | None]:
        """Whether the recording was whole, and if not, why (after :meth:`reads` is done)."""
        reason = self.reader.incomplete_reason()
        return reason is None, reason


def open_recording(fp: IO[bytes], head: bytes, path: str, turn: int = 1) -> Recording | None:
    """A :class:`Recording` when ``head`` (the first bytes already read) starts one
    (``turn``: which turn of a WebSocket session)."""
    if not looks_like_recording(head):
        return None
    try:
        reader = RecordingReader(Prepend(head, fp), path, by="inspect", websocket=True)
        return Recording(reader, turn)
    except RecordingError as exc:
        raise InputError(f"line {exc.line}: {exc.message}", exc.path) from None


def play(
    view: StreamView,
    reads: Iterable[tuple[float, bytes]],
    speed: float,
    *,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Feed recorded reads at their recorded times divided by ``speed`` (0: no waiting)."""
    start = clock()
    for t, data in reads:
        if speed > 0:
            due = start + t / speed
            while (now := clock()) < due:
                view.tick((now - start) * speed)
                sleep(min(due - now, POLL))
        view.feed(t, data)


def pump(
    view: StreamView,
    fp: IO[bytes],
    head: bytes,
    *,
    clock: Callable[[], float] = time.monotonic,
    start: float | None = None,
) -> None:
    """Feed a live body (a pipe) as it arrives, timed on arrival; returns at end of input."""
    start = clock() if start is None else start
    if head:
        view.feed(clock() - start, head)
    fd = fp.fileno()
    while True:
        ready, _, _ = select.select([fd], [], [], POLL)
        if not ready:
            view.tick(clock() - start)
            continue
        data = os.read(fd, READ_SIZE)
        if not data:
            return
        view.feed(clock() - start, data)


def read_head(fp: IO[bytes], limit: int = 64) -> bytes:
    """The first bytes of a pipe: enough to tell a recording from a raw body, without waiting
    for more than the writer has sent (a line, ``limit`` bytes, or the end)."""
    fd = fp.fileno()
    head = b""
    while len(head) < limit and b"\n" not in head:
        data = os.read(fd, limit - len(head))
        if not data:
            break
        head += data
    return head


@contextmanager
def live_screen(
    view: StreamView,
    console: Console,
    *,
    ticking: Callable[[], float] | None = None,
) -> Iterator[None]:
    """Show ``view`` live on ``console`` while the body runs; redraws capped at :data:`FPS`.

    ``ticking`` is a clock for live sources: the view's elapsed time follows it between reads.
    """

    def frame() -> RenderableType:
        if ticking is not None:
            view.tick(ticking())
        return render(view, console.width, Budget.for_height(console.height))

    with Live(
        console=console,
        get_renderable=frame,
        auto_refresh=True,
        refresh_per_second=FPS,
        transient=False,
        redirect_stdout=False,
        redirect_stderr=False,
        vertical_overflow="crop",
    ):
        yield


def print_summary(view: StreamView, console: Console) -> None:
    """The final screen, with roomier panes (what ``--no-live`` prints)."""
    console.print(render(view, console.width, SUMMARY))


def export(view: StreamView, width: int, svg: str | None, html: str | None) -> None:
    """Save the final screen for a bug report; the files are written whole or not at all."""
    import io

    console = Console(record=True, width=width, file=io.StringIO(), color_system="truecolor")
    console.print(render(view, width, SUMMARY))
    if svg:
        _write_new(svg, console.export_svg(title=f"sseconform inspect {view.source}", clear=False))
    if html:
        _write_new(html, console.export_html(clear=False))


def _write_new(path: str, data: str) -> None:
    """Write whole or not at all; an error names ``path``, and no temporary file is left."""
    if os.path.isdir(path):
        raise IsADirectoryError(21, "Is a directory", path)
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open_text(tmp) as fp:
            fp.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise OSError(exc.errno, exc.strerror, path) from None
