"""``sseconform record``: a provider's or gateway's stream into a recording, byte-exact."""

from __future__ import annotations

import contextlib
import os
import re
import sys
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from sseconform.cli.app import app, fail
from sseconform.errors import SseconformError, UsageError

if TYPE_CHECKING:  # imported when the command runs (a fast --help)
    from sseconform.record import Outcome


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
        str | None,
        typer.Option("--data", "-d", help="Request body: JSON, @file, or @- for stdin."),
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
        bool, typer.Option("--check", help="Check the recorded stream when it ends.")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress line.")] = False,
    watch: Annotated[
        bool, typer.Option("--watch", help="Show the stream reassembling as it arrives (inspect).")
    ] = False,
) -> None:
    """Record a live (or replayed) stream: exact bytes, per-read timing, secrets redacted."""
    import signal

    from sseconform import record as rec
    from sseconform.recording.redact import Redactor, scrub_text

    if output is None:
        fail("give the recording's file name with -o/--output")
    try:
        req, secrets = _build_request(url, data, header or [], method, provider, model)
    except SseconformError as exc:
        fail(str(exc))
    redactor = Redactor.configured(redact or [], keep or [])
    for target in (output, raw):  # refuse before anything is created or sent
        if target is not None and target.exists() and not force:
            fail(f"{target}: exists (use --force to replace it)")
    if raw is not None and os.path.abspath(raw) == os.path.abspath(output):
        fail(f"{raw}: --raw and --output name the same file; give two")

    def on_term(signum: int, frame: object) -> None:
        raise rec.Interrupted("terminated (SIGTERM)")

    signal.signal(signal.SIGTERM, on_term)
    live = sys.stderr.isatty() and not quiet and not watch
    shown = [0.0]

    def progress(p: rec.Progress) -> None:
        now = p.elapsed
        if now - shown[0] >= 0.1:
            shown[0] = now
            sys.stderr.write("\r" + _progress_line(p))
            sys.stderr.flush()

    watcher = _Watcher(str(output), provider) if watch else None
    try:
        with watcher.screen() if watcher is not None else nullcontext():
            outcome = rec.record(
                req,
                str(output),
                force=force,
                stall_timeout=stall_timeout if stall_timeout > 0 else None,
                connect_timeout=connect_timeout,
                deadline=deadline if deadline > 0 else None,
                max_bytes=max_bytes if max_bytes > 0 else None,
                redactor=redactor,
                raw=str(raw) if raw is not None else None,
                on_progress=progress if live else None,
                on_read=watcher.read if watcher is not None else None,
                on_response=watcher.response if watcher is not None else None,
            )
            if watcher is not None:
                watcher.end(outcome.complete, outcome.reason)
    except FileExistsError as exc:
        fail(f"{exc.filename}: exists (use --force to replace it)")
    except OSError as exc:
        fail(f"{exc.filename or output}: {exc.strerror}")
    p = outcome.progress
    if live:
        sys.stderr.write("\r" + _progress_line(p) + "\n")
    if p.status is None and not outcome.reason.startswith("interrupted"):
        # nothing came back: no recording to keep (it would hold the request alone)
        for made in (output, raw):
            if made is not None:
                with contextlib.suppress(OSError):
                    os.unlink(made)
        fail(scrub_text(f"nothing recorded: {outcome.reason}{_flag(outcome)}", secrets), code=1)
    state = "complete" if outcome.complete else f"INCOMPLETE ({outcome.reason}{_flag(outcome)})"
    status = f"HTTP {p.status}" if p.status is not None else "no response"
    ttft = f", time to first token {p.ttft:.3f} s" if p.ttft is not None else ""
    typer.echo(
        scrub_text(
            f"recorded {output}: {state}; {status}, {p.bytes} bytes in {p.reads} reads, "
            f"{p.events} events, {p.elapsed:.3f} s{ttft}",
            secrets,
        ),
        err=True,
    )
    if outcome.redacted:
        typer.echo(f"redacted: {', '.join(outcome.redacted)}", err=True)
    code = 0 if outcome.complete and p.status is not None and 200 <= p.status < 300 else 1
    if check_after:
        from sseconform.api import check_file
        from sseconform.report import text as text_report

        result = check_file(str(output))
        text_report.write([result], sys.stdout, False)
        if not result.ok():
            code = 1
    if outcome.reason.startswith("interrupted"):
        code = 130
    raise typer.Exit(code)


def _flag(outcome: Outcome) -> str:
    """The option that sets the bound a recording ended on, for the message."""
    if outcome.reason.startswith("stalled"):
        return "; see --stall-timeout"
    flag = {"deadline": "--deadline", "max-bytes": "--max-bytes"}.get(outcome.bound or "")
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


def _build_request(
    url: str | None,
    data: str | None,
    header: list[str],
    method: str | None,
    provider: str | None,
    model: str | None,
) -> tuple[Any, list[str]]:
    """The request to send, and the secret values in it (to keep them out of messages)."""
    import json as _json

    from sseconform import providers as prov
    from sseconform.record import Request, url_problem

    headers: list[tuple[str, str]] = []
    for h in header:
        name, sep, value = h.partition(":")
        name, value = name.strip(), value.strip()
        if not sep or not re.fullmatch(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+", name):
            raise UsageError(f"bad header {h!r}: use 'Name: value' (the name a token)")
        if not value.isascii() or not value.isprintable():
            raise UsageError(
                f"header {name!r}: its value must be printable ASCII (HTTP sends no other)"
            )
        headers.append((name, value))
    body: bytes | None = None
    if data is not None:
        body = _read_data(data)
    secrets = [v for k, v in headers if k.lower() in ("authorization", "x-api-key", "api-key")]
    if provider is not None:
        preset = prov.PRESETS.get(provider)
        if preset is None:
            raise UsageError(f"unknown provider {provider!r}; providers: {', '.join(prov.PRESETS)}")
        if url is None:
            if "{model}" in preset.url and not model:
                raise UsageError(f"--provider {provider} needs --model (it is part of the URL)")
            url = preset.url.replace("{model}", model or "")
        if body is not None:
            try:
                obj = _json.loads(body)
            except ValueError:
                raise UsageError("--data must be JSON with --provider") from None
            body = _json.dumps(prov.prepare_body(preset.dialect, obj)).encode()
        names = {k.lower() for k, _ in headers}
        for k, v in preset.headers.items():
            if k not in names:
                headers.append((k, v))
        if preset.auth_header not in names:
            key = next((os.environ[e] for e in preset.env if os.environ.get(e)), None)
            if key is None:
                raise UsageError(
                    f"set {' or '.join(preset.env)} (or pass -H '{preset.auth_header}: ...')"
                )
            headers.append((preset.auth_header, preset.auth_format.format(key=key)))
            secrets.append(key)
        if not any(k.lower() == "content-type" for k, _ in headers):
            headers.append(("content-type", "application/json"))
    if url is None:
        raise UsageError("give a URL, or --provider")
    problem = url_problem(url)
    if problem is not None:
        raise UsageError(problem)
    if body is not None and not any(k.lower() == "content-type" for k, _ in headers):
        headers.append(("content-type", "application/json"))
    verb = (method or ("POST" if body is not None else "GET")).upper()
    return Request(verb, url, headers, body), secrets


def _read_data(data: str) -> bytes:
    if data == "@-":
        return sys.stdin.buffer.read()
    if data.startswith("@"):
        try:
            return Path(data[1:]).read_bytes()
        except OSError as exc:
            raise UsageError(f"{data[1:]}: {exc.strerror}") from None
    return data.encode()
