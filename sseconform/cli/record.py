"""``sseconform record``: a provider's or gateway's stream into a recording, byte-exact."""

from __future__ import annotations

import contextlib
import os
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sseconform.cli.app import app, fail
from sseconform.errors import SseconformError

if TYPE_CHECKING:  # imported when the command runs (a fast --help)
    from sseconform.record import Outcome, Progress


@app.command()
def record(
    url: Annotated[
        str | None,
        typer.Argument(help="Where to send the request (optional with --provider).", metavar="URL"),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="The recording to write.", metavar="FILE"),
    ] = None,
    data: Annotated[
        list[str] | None,
        typer.Option(
            "--data",
            "-d",
            help="Request body: JSON, @file, or @- for stdin. With --transport websocket, "
            "each -d is a turn's response.create, sent in order.",
        ),
    ] = None,
    header: Annotated[
        list[str] | None,
        typer.Option("--header", "-H", help="'Name: value'; repeatable.", metavar="HEADER"),
    ] = None,
    method: Annotated[
        str | None, typer.Option("--request", "-X", help="HTTP method (default POST with -d).")
    ] = None,
    provider: Annotated[
        str | None,
        typer.Option(help="openai, anthropic, gemini or responses: URL, auth, version, stream."),
    ] = None,
    model: Annotated[
        str | None, typer.Option(help="The model, for URLs that carry it (gemini).")
    ] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing recording.")] = False,
    stall_timeout: Annotated[
        float, typer.Option(help="Give up after this many seconds without a byte.")
    ] = 60.0,
    connect_timeout: Annotated[float, typer.Option(help="Seconds to connect.")] = 30.0,
    deadline: Annotated[
        float,
        typer.Option(
            help="Give up after this many seconds in all, however the server drips it; 0: none."
        ),
    ] = 0.0,
    max_bytes: Annotated[
        int,
        typer.Option(help="Keep at most this many body bytes (decoded), then stop; 0: no cap."),
    ] = 0,
    redact: Annotated[
        list[str] | None,
        typer.Option(help="Also redact this header, query parameter or body field."),
    ] = None,
    keep: Annotated[
        list[str] | None,
        typer.Option(help="Do not redact this name (it is no secret); repeatable."),
    ] = None,
    raw: Annotated[
        Path | None, typer.Option(help="Also write the plain body to this file.", metavar="FILE")
    ] = None,
    check_after: Annotated[
        bool,
        typer.Option(
            "--check",
            help="Check the recorded stream when it ends, in its dialect's grammar (from "
            "--provider, the URL's path, else the stream's first event).",
        ),
    ] = False,
    grammar: Annotated[
        str | None,
        typer.Option(
            "--grammar",
            "-g",
            help="With --check: check in this grammar instead (chat, anthropic, responses, "
            "open-responses, gemini, or auto: from the first event).",
            show_default=False,
            metavar="GRAMMAR",
        ),
    ] = None,
    transport: Annotated[
        str,
        typer.Option(
            help="http, or websocket: the Responses API's WebSocket mode (GET /v1/responses "
            "upgraded; each -d a turn).",
        ),
    ] = "http",
    chain: Annotated[
        bool,
        typer.Option(
            help="With --transport websocket: each turn after the first names the previous "
            "turn's response id in previous_response_id.",
        ),
    ] = False,
    turn_timeout: Annotated[
        float,
        typer.Option(
            help="With --transport websocket: seconds a turn may take to reach its last "
            "event; 0: no limit."
        ),
    ] = 300.0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress line.")] = False,
    watch: Annotated[
        bool, typer.Option("--watch", help="Show the stream reassembling as it arrives (inspect).")
    ] = False,
) -> None:
    """Record a live (or replayed) stream: exact bytes, per-read timing, secrets redacted."""
    import signal

    from sseconform import record as rec
    from sseconform.recording.redact import scrub_text

    if output is None:
        fail("give the recording's file name with -o/--output")
    if transport not in ("http", "websocket"):
        fail(f"--transport: {transport!r} is not http or websocket")
    if transport == "http" and (chain or len(data or []) > 1):
        fail("several -d and --chain are the turns of --transport websocket; HTTP sends one")
    options = rec.RecordOptions(
        output=str(output),
        raw=str(raw) if raw is not None else None,
        force=force,
        stall_timeout=stall_timeout,
        connect_timeout=connect_timeout,
        deadline=deadline,
        max_bytes=max_bytes,
        redact=redact or [],
        keep=keep or [],
    )
    _known_grammar(grammar, check_after)
    if transport == "websocket":
        refused = [name for name, given in (("-X", method), ("--raw", raw), ("--model", model))
                   if given is not None]  # fmt: skip
        refused += [n for n, on in (("--check", check_after), ("--watch", watch)) if on]
        if refused:
            fail(f"{', '.join(refused)}: not with --transport websocket (not yet)")
        _record_websocket(url, data or [], header or [], provider, chain, turn_timeout, options)
    try:
        req, secrets = rec.build_request(
            url, data[0] if data else None, header or [], method, provider, model
        )
        options.refuse_overwrite()  # before anything is created or sent
    except (SseconformError, rec.Refused) as exc:
        fail(str(exc))
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    live = sys.stderr.isatty() and not quiet and not watch
    watcher = _Watcher(str(output), provider) if watch else None
    try:
        with watcher.screen() if watcher is not None else nullcontext():
            outcome = rec.run_record(
                req,
                options,
                on_progress=_Live().show if live else None,
                on_read=watcher.read if watcher is not None else None,
                on_response=watcher.response if watcher is not None else None,
            )
            if watcher is not None:
                watcher.end(outcome.complete, outcome.reason)
    except FileExistsError as exc:
        fail(f"{exc.filename}: exists (use --force to replace it)")
    except OSError as exc:
        fail(f"{exc.filename or output}: {exc.strerror}")
    if live:
        sys.stderr.write("\r" + _progress_line(outcome.progress) + "\n")
    if outcome.nothing_recorded:  # no file is left: it would hold the request alone
        fail(scrub_text(f"nothing recorded: {outcome.reason}{_flag(outcome)}", secrets), code=1)
    typer.echo(scrub_text(_summary(outcome), secrets), err=True)
    if outcome.redacted:
        typer.echo(f"redacted: {', '.join(outcome.redacted)}", err=True)
    code = 0 if outcome.ok else 1
    if check_after and not _checked(
        outcome.path, grammar or rec.recorded_grammar(provider, req.url)
    ):
        code = 1
    raise typer.Exit(130 if outcome.interrupted else code)


def _record_websocket(
    url: str | None,
    data: list[str],
    header: list[str],
    provider: str | None,
    chain: bool,
    turn_timeout: float,
    options: Any,
) -> None:
    """``--transport websocket``: the session recorded; exits (0 when every turn ended with
    its last event, 1 otherwise, 130 on Ctrl-C)."""
    import signal

    from sseconform import record as rec
    from sseconform.record import websocket as ws
    from sseconform.recording.redact import Redactor, scrub_text

    try:
        headers = [rec.parse_header(h) for h in header]
        secrets = rec.key_values(headers)
        if provider is not None:
            if provider != "responses":
                raise rec.Refused("--transport websocket is the Responses API's: --provider "
                                  "responses, or a URL")  # fmt: skip
            url, _ = rec.apply_preset(provider, None, url, headers, None, secrets)
        if url is None:
            raise rec.Refused("give a URL, or --provider responses")
        ws.ws_target(url)
        turns = ws.turn_bodies(data)
        options.refuse_overwrite()
    except (SseconformError, rec.Refused) as exc:
        fail(str(exc))
    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    try:
        outcome = ws.record_websocket(
            url,
            turns,
            options.output,
            headers=headers,
            chain=chain,
            force=options.force,
            connect_timeout=options.connect_timeout,
            stall_timeout=options.stall_timeout if options.stall_timeout > 0 else None,
            turn_timeout=turn_timeout if turn_timeout > 0 else None,
            deadline=options.deadline if options.deadline > 0 else None,
            max_bytes=options.max_bytes if options.max_bytes > 0 else None,
            redactor=Redactor.configured(options.redact, options.keep),
        )
    except FileExistsError as exc:
        fail(f"{exc.filename}: exists (use --force to replace it)")
    except OSError as exc:
        fail(f"{exc.filename or options.output}: {exc.strerror}")
    if outcome.nothing_recorded:
        with contextlib.suppress(OSError):
            os.unlink(options.output)
        fail(scrub_text(f"nothing recorded: {outcome.reason}", secrets), code=1)
    typer.echo(scrub_text(_ws_summary(outcome), secrets), err=True)
    if outcome.redacted:
        typer.echo(f"redacted: {', '.join(outcome.redacted)}", err=True)
    raise typer.Exit(130 if outcome.interrupted else 0 if outcome.ok else 1)


def _ws_summary(o: Any) -> str:
    """The line that says what a WebSocket session's recording holds."""
    if o.status != 101:
        return (
            f"recorded {o.path}: {o.reason}; the refusal's body, {o.bytes} bytes, is in the "
            "recording"
        )
    state = "complete" if o.ok else f"INCOMPLETE ({o.reason})" if not o.complete else o.reason
    close = ""
    if o.close is not None:
        how = f"closed {o.close.code}" if o.close.code is not None else "ended without a Close"
        close = f"; {how} by the {o.close.by}" if o.close.code is not None else f"; {how}"
    return (
        f"recorded {o.path}: {state}; WebSocket, {o.answered} of {o.turns} turns answered, "
        f"{o.messages} messages, {o.bytes} bytes in {o.reads} reads, {o.elapsed:.3f} s{close}"
    )


def _on_signal(signum: int, frame: object) -> None:
    """Ctrl-C or SIGTERM: the recording ends, incomplete, keeping what came."""
    import signal

    from sseconform.recording.bounds import INTERRUPTED, Interrupted, interrupt

    if signum == signal.SIGINT:
        if not interrupt(INTERRUPTED):
            raise KeyboardInterrupt
    elif not interrupt("terminated (SIGTERM)"):
        raise Interrupted("terminated (SIGTERM)")


class _Live:
    """The progress line on a terminal, redrawn at most every 0.1 s."""

    def __init__(self) -> None:
        self.shown = 0.0

    def show(self, p: Progress) -> None:
        if p.elapsed - self.shown >= 0.1:
            self.shown = p.elapsed
            sys.stderr.write("\r" + _progress_line(p))
            sys.stderr.flush()


def _summary(outcome: Outcome) -> str:
    """The line that says what was recorded."""
    p = outcome.progress
    state = "complete" if outcome.complete else f"INCOMPLETE ({outcome.reason}{_flag(outcome)})"
    status = f"HTTP {p.status}" if p.status is not None else "no response"
    ttft = f", time to first token {p.ttft:.3f} s" if p.ttft is not None else ""
    return (
        f"recorded {outcome.path}: {state}; {status}, {p.bytes} bytes in {p.reads} reads, "
        f"{p.events} events, {p.elapsed:.3f} s{ttft}"
    )


def _known_grammar(grammar: str | None, check_after: bool) -> None:
    """``--grammar`` names a grammar and comes with ``--check``: said before anything is sent."""
    from sseconform.rules.grammars import CHOICES

    if grammar is None:
        return
    if not check_after:
        fail("--grammar says how --check reads the recording: give --check too")
    if grammar not in CHOICES:
        fail(f"--grammar: unknown grammar {grammar!r}; grammars: {', '.join(CHOICES)}")


def _checked(path: str, grammar: str | None) -> bool:
    """``--check``: the recorded stream checked in ``grammar`` (None: its first event says,
    as ``check --grammar auto`` reads it), its report on stdout; does it conform?"""
    from sseconform.api import check_file
    from sseconform.report import text as text_report
    from sseconform.rules.grammars import AUTO

    result = check_file(path, grammar=grammar or AUTO)
    text_report.write([result], sys.stdout, False)
    return result.ok()


def _flag(outcome: Outcome) -> str:
    """The option that sets the bound a recording ended on, for the message."""
    if outcome.reason.startswith("stalled"):
        return "; see --stall-timeout"
    flag = {"deadline": "--deadline", "silent": "--deadline", "max-bytes": "--max-bytes"}.get(
        outcome.bound or ""
    )
    return f"; see {flag}" if flag else ""


class _Watcher:
    """``record --watch``: inspect's live view, fed by the recorder's reads, on stderr."""

    def __init__(self, name: str, dialect: str | None) -> None:
        import time

        from rich.console import Console

        from sseconform.cli.app import color_settings
        from sseconform.inspect.state import StreamView

        self.console = Console(stderr=True, highlight=False, **color_settings())
        self.view = StreamView(name, dialect=dialect)
        self._clock = time.monotonic
        self._t0 = time.monotonic()  # moved to the recorder's own start at the first read

    def elapsed(self) -> float:
        return self._clock() - self._t0

    def screen(self) -> AbstractContextManager[None]:
        from sseconform.inspect import run

        if not self.console.is_terminal:
            return nullcontext()
        return run.live_screen(self.view, self.console, ticking=self.elapsed)

    def response(self, status: int) -> None:
        self.view.http_status = status

    def read(self, t: float, chunk: bytes) -> None:
        """A read at the recorder's time ``t``: the view's clock follows the recording's."""
        self._t0 = self._clock() - t
        self.view.feed(t, chunk)

    def end(self, complete: bool, reason: str) -> None:
        from sseconform.inspect import run

        self.view.finish(complete=complete, reason=None if complete else reason)
        if not self.console.is_terminal:
            run.print_summary(self.view, self.console)


def _progress_line(p: Any) -> str:
    size = f"{p.bytes / 1024:.1f} KiB" if p.bytes >= 1024 else f"{p.bytes} B"
    ttft = f"  first token {p.ttft:.3f} s" if p.ttft is not None else ""
    return f"  {size}  {p.events} events  {p.elapsed:.2f} s{ttft}    "
