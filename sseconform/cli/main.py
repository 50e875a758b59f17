"""``sseconform``: check, rules, rule.

Exit codes: 0 no error; 1 errors (or warnings under ``--strict``); 2 unusable input or bad
arguments; 3 an internal error (a bug: please report it); 130 interrupted.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import IO, Annotated, Any, NoReturn

import typer

from sseconform.errors import SseconformError, UsageError
from sseconform.version import __version__

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Record, translate and check the SSE streams of LLM APIs and gateways.",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _fail(message: str, code: int = 2) -> NoReturn:
    typer.echo(f"sseconform: error: {message}", err=True)
    raise typer.Exit(code)


def _check_dialect(dialect: str | None) -> None:
    from sseconform.providers import DIALECTS

    if dialect is not None and dialect not in DIALECTS:
        _fail(f"unknown dialect {dialect!r}; dialects: {', '.join(DIALECTS)}")


def _open_input(source: str) -> IO[bytes]:
    """A file to read, or standard input for ``-``; a clear one-line error otherwise."""
    try:
        return sys.stdin.buffer if source == "-" else open(source, "rb")
    except FileNotFoundError:
        _fail(f"{source}: no such file")
    except IsADirectoryError:
        _fail(f"{source}: is a directory")
    except OSError as exc:
        _fail(f"{source}: {exc.strerror}")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"sseconform {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = False,
) -> None:
    """Record, translate and check the SSE streams of LLM APIs and gateways."""


@app.command()
def check(
    paths: Annotated[
        list[str],
        typer.Argument(
            help="Files, directories, globs, or - for standard input.",
            show_default=False,
            metavar="PATH",
        ),
    ],
    fmt: Annotated[
        str | None,
        typer.Option(
            "--format",
            "-f",
            help="text, json, junit or github.",
            show_default=False,
            metavar="FORMAT",
        ),
    ] = None,
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write the report to this file.", metavar="FILE"),
    ] = None,
    select: Annotated[
        list[str] | None,
        typer.Option(
            help="Only these codes, families (T), names or invariants; repeatable.",
            metavar="CODES",
        ),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option(help="Leave out these codes, families, names or invariants.", metavar="CODES"),
    ] = None,
    strict: Annotated[
        bool | None, typer.Option("--strict/--no-strict", help="Warnings fail too.")
    ] = None,
    config: Annotated[
        Path | None,
        typer.Option(help="Settings file (default: the nearest pyproject.toml).", metavar="FILE"),
    ] = None,
    max_per_code: Annotated[
        int | None,
        typer.Option(
            help="Show at most this many diagnostics per code and file.", min=1, metavar="N"
        ),
    ] = None,
) -> None:
    """Check streams against the chunk grammar, the JSON Schemas and the five invariants."""
    from sseconform import config as cfg
    from sseconform.api import FileResult, check_file, expand_paths
    from sseconform.errors import InputError
    from sseconform.report import get_reporter
    from sseconform.rules.engine import Settings

    try:
        file_cfg = cfg.load(path=config) if config else cfg.load()
        values = file_cfg.values
        sel = cfg.split_selectors(select) if select else list(values.get("select", []))
        ign = cfg.split_selectors(ignore) if ignore else list(values.get("ignore", []))
        cfg.validate_selectors(sel, "--select")
        cfg.validate_selectors(ign, "--ignore")
        is_strict = bool(values.get("strict", False)) if strict is None else strict
        fmt_name = fmt if fmt is not None else str(values.get("format", "text"))
        try:
            reporter = get_reporter(fmt_name)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        settings = Settings(select=sel, ignore=ign)
        if max_per_code is not None:
            settings.max_per_code = max_per_code
        elif "max-per-code" in values:
            settings.max_per_code = int(values["max-per-code"])
        if "max-line-bytes" in values:
            settings.max_line = int(values["max-line-bytes"])
        if "max-event-bytes" in values:
            settings.max_event = int(values["max-event-bytes"])
        if "max-arguments-bytes" in values:
            settings.max_arguments = int(values["max-arguments-bytes"])
        files = list(expand_paths(paths))
    except SseconformError as exc:
        _fail(str(exc))
    if files.count("-") > 1:
        _fail("standard input (-) can be given only once")

    results: list[FileResult] = []
    for name in files:
        try:
            results.append(check_file(name, settings))
        except InputError as exc:
            results.append(FileResult(name, error=exc.reason))
            typer.echo(f"sseconform: error: {exc}", err=True)

    if output is not None:
        try:
            with open(output, "w", encoding="utf-8") as out:
                reporter(results, out, is_strict)
        except OSError as exc:
            _fail(f"{output}: cannot write the report: {exc.strerror}")
    else:
        reporter(results, sys.stdout, is_strict)
    if any(r.error is not None for r in results):
        raise typer.Exit(2)
    raise typer.Exit(0 if all(r.ok(strict=is_strict) for r in results) else 1)


@app.command("rules")
def rules_cmd(
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="text or json.", metavar="FORMAT")
    ] = "text",
) -> None:
    """List every rule: code, severity, invariant, name and summary."""
    from sseconform.rules.catalog import RULES

    if fmt == "json":
        import json

        rows = [
            {
                "code": r.code,
                "name": r.name,
                "severity": r.severity.value,
                "invariant": r.invariant,
                "summary": r.summary,
            }
            for r in RULES.values()
        ]
        typer.echo(json.dumps(rows, indent=2))
        return
    if fmt != "text":
        _fail(f"unknown format {fmt!r}; valid formats: text, json")
    for r in RULES.values():
        inv = r.invariant or "-"
        typer.echo(f"{r.code}  {r.severity.value:<7}  {inv:<17}  {r.name:<28}  {r.summary}")


@app.command("rule")
def rule_cmd(code: Annotated[str, typer.Argument(help="A rule code (T001) or name.")]) -> None:
    """Print one rule's documentation: what, why, which clients break, example, fix."""
    from sseconform.rules.catalog import get
    from sseconform.rules.docs import DOCS

    try:
        rule = get(code)
    except KeyError:
        _fail(f"no rule {code!r} (see `sseconform rules`)")
    doc = DOCS[rule.code]
    inv = f"invariant: {rule.invariant}" if rule.invariant else "invariant: none"
    out = [f"{rule.code} {rule.name} ({rule.severity.value}; {inv})", "", rule.summary, ""]
    for title, body in (
        ("What it does", doc.what),
        ("Why it matters", doc.why),
        ("Which clients break", doc.clients),
    ):
        out += [f"## {title}", *textwrap.wrap(body, 96), ""]
    out += ["## Example", textwrap.indent(doc.example.rstrip("\n"), "    "), ""]
    out += ["## Fix", *_para(doc.fix), ""]
    typer.echo("\n".join(out).rstrip("\n"))


def _para(text: str) -> list[str]:
    """Wrap prose but keep lines that look like SSE excerpts as they are."""
    out: list[str] = []
    for line in text.splitlines() or [""]:
        if line.startswith(("data:", "event:", ":", "id:", "retry:")) or not line.strip():
            out.append("    " + line if line.strip() else "")
        else:
            out.extend(textwrap.wrap(line, 96))
    return out


def main() -> None:
    """Console entry point: never a traceback for the user unless SSECONFORM_DEBUG is set."""
    try:
        app()
    except KeyboardInterrupt:
        typer.echo("sseconform: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        sys.stderr.close()
        sys.exit(1)
    except Exception as exc:  # a bug: say so in one line
        if os.environ.get("SSECONFORM_DEBUG"):
            raise
        typer.echo(
            f"sseconform: internal error: {type(exc).__name__}: {exc} "
            "(set SSECONFORM_DEBUG=1 for a traceback, and please report it)",
            err=True,
        )
        sys.exit(3)


# -- record ----------------------------------------------------------------------------------


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
        _fail("give the recording's file name with -o/--output")
    try:
        req, secrets = _build_request(url, data, header or [], method, provider, model)
    except SseconformError as exc:
        _fail(str(exc))
    redactor = Redactor.configured(redact or [], keep or [])
    for target in (output, raw):  # refuse before anything is created or sent
        if target is not None and target.exists() and not force:
            _fail(f"{target}: exists (use --force to replace it)")

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
                redactor=redactor,
                raw=str(raw) if raw is not None else None,
                on_progress=progress if live else None,
                on_read=watcher.read if watcher is not None else None,
                on_response=watcher.response if watcher is not None else None,
            )
            if watcher is not None:
                watcher.end(outcome.complete, outcome.reason)
    except FileExistsError as exc:
        _fail(f"{exc.filename}: exists (use --force to replace it)")
    except OSError as exc:
        _fail(f"{exc.filename or output}: {exc.strerror}")
    p = outcome.progress
    if live:
        sys.stderr.write("\r" + _progress_line(p) + "\n")
    state = "complete" if outcome.complete else f"INCOMPLETE ({outcome.reason})"
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


class _Watcher:
    """``record --watch``: inspect's live view, fed by the recorder's reads, on stderr."""

    def __init__(self, name: str, dialect: str | None) -> None:
        import time

        from rich.console import Console

        from sseconform.inspect.state import StreamView

        self.console = Console(stderr=True, highlight=False)
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
    from sseconform.record import Request

    headers: list[tuple[str, str]] = []
    for h in header:
        name, sep, value = h.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"bad header {h!r}: use 'Name: value'")
        headers.append((name.strip(), value.strip()))
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
    if not url.startswith(("http://", "https://")):
        raise UsageError(f"{url!r} is not an http(s) URL")
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


# -- replay ----------------------------------------------------------------------------------


@app.command()
def replay(
    files: Annotated[
        list[str],
        typer.Argument(help="Recordings (or raw SSE bodies) to serve.", metavar="FILE"),
    ],
    host: Annotated[
        str, typer.Option(help="Address to bind; anything but loopback is warned about.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port; 0 picks a free one (printed).", min=0)] = 0,
    speed: Annotated[
        float, typer.Option(help="1 recorded timing, 0 as fast as possible, N scales.", min=0)
    ] = 1.0,
    split: Annotated[
        str | None,
        typer.Option(help="Re-cut the writes: N bytes, byte, event or crlf.", metavar="MODE"),
    ] = None,
    fault: Annotated[
        str | None,
        typer.Option(help="Faults for every request (see README), e.g. drop-after-events=3."),
    ] = None,
    scenario: Annotated[
        Path | None, typer.Option(help="TOML rules: which recording and fault per request.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not log requests.")] = False,
) -> None:
    """Serve recordings as a mock upstream at the providers' paths, with timing and faults."""
    import asyncio

    from sseconform.replay.plan import load
    from sseconform.replay.scenario import load_rules
    from sseconform.replay.server import ReplayServer

    try:
        loaded = [load(f) for f in files]
        rules = load_rules(str(scenario), {r.name for r in loaded}) if scenario else None
        server = ReplayServer(
            loaded,
            host=host,
            port=port,
            speed=speed,
            split=split,
            fault=fault,
            rules=rules,
            log=None if quiet else (lambda line: typer.echo(line, err=True)),
        )
    except SseconformError as exc:
        _fail(str(exc))
    except ValueError as exc:
        _fail(str(exc))
    if not ReplayServer.is_loopback(host):
        typer.echo(
            f"sseconform: warning: serving on {host}, not loopback: anyone who can reach it "
            "can read these recordings",
            err=True,
        )

    async def main() -> None:
        await server.start()
        typer.echo(f"sseconform replay: serving {len(loaded)} recording(s) on {server.url}")
        for r in loaded:
            model = r.model or "-"
            typer.echo(
                f"  {r.name}: {r.dialect or 'unknown dialect'}, model {model}, "
                f"HTTP {r.status}, {len(r.reads)} reads, {len(r.body)} bytes"
            )
        sys.stdout.flush()
        await server.serve()

    from sseconform.replay.server import new_loop

    try:
        with asyncio.Runner(loop_factory=new_loop) as runner:
            runner.run(main())
    except OSError as exc:
        _fail(f"cannot listen on {host}:{port}: {exc.strerror}")
    except KeyboardInterrupt:
        typer.echo("sseconform replay: stopped", err=True)


# -- inspect ---------------------------------------------------------------------------------


@app.command()
def inspect(
    source: Annotated[
        str,
        typer.Argument(help="A recording, a raw SSE body, or - for a pipe.", metavar="FILE"),
    ],
    speed: Annotated[
        float, typer.Option(help="1 recorded timing, 0 as fast as possible, N scales.", min=0)
    ] = 1.0,
    live: Annotated[
        bool, typer.Option("--live/--no-live", help="Draw live, or print only the summary.")
    ] = True,
    dialect: Annotated[
        str | None,
        typer.Option("--from", help="anthropic, gemini, responses or openai (default: detected)."),
    ] = None,
    stall: Annotated[
        float, typer.Option(help="A gap between events this long (seconds) is a stall.", min=0)
    ] = 1.0,
    export_svg: Annotated[
        Path | None, typer.Option(help="Save the final screen as SVG.", metavar="FILE")
    ] = None,
    export_html: Annotated[
        Path | None, typer.Option(help="Save the final screen as HTML.", metavar="FILE")
    ] = None,
    force: Annotated[bool, typer.Option(help="Replace existing export files.")] = False,
) -> None:
    """Watch a stream reassemble: text, reasoning, tool-call arguments, diagnostics, gaps.

    Native dialects are translated on the fly; each native event is shown beside the chunks
    it became. Ctrl-C stops and prints the summary.
    """
    from rich.console import Console

    from sseconform.inspect import run
    from sseconform.inspect.state import StreamView

    _check_dialect(dialect)
    for target in (export_svg, export_html):
        if target is not None and target.exists() and not force:
            _fail(f"{target}: exists (use --force to replace it)")
    fp = _open_input(source)
    name = "<stdin>" if source == "-" else source
    console = Console(highlight=False)
    drawing = live and console.is_terminal
    code = 0
    with fp:
        try:
            head = run.read_head(fp) if source == "-" else fp.read(64)
            rec = run.open_recording(fp, head, name)
        except SseconformError as exc:
            _fail(str(exc))
        view = StreamView(
            name, dialect=dialect, stall=stall, status=rec.status if rec is not None else None
        )
        import time
        from contextlib import nullcontext

        t0 = time.monotonic()
        piped = rec is None and source == "-"
        screen = (
            run.live_screen(
                view, console, ticking=(lambda: time.monotonic() - t0) if piped else None
            )
            if drawing
            else nullcontext()
        )
        try:
            with screen:
                try:
                    if rec is not None:
                        run.play(view, rec.reads(), speed)
                        complete, reason = rec.outcome()
                        view.finish(complete=complete, reason=reason)
                    elif piped:
                        run.pump(view, fp, head, start=t0)
                        view.finish()
                    else:
                        view.feed(0.0, head)
                        while piece := fp.read(run.READ_SIZE):
                            view.feed(0.0, piece)
                        view.finish()
                except KeyboardInterrupt:
                    view.finish(complete=False, reason="interrupted (Ctrl-C)")
                    code = 130
        except SseconformError as exc:
            _fail(str(exc))
    if not drawing:
        run.print_summary(view, console)
    if export_svg is not None or export_html is not None:
        try:
            run.export(
                view,
                console.width if drawing else 100,
                str(export_svg) if export_svg else None,
                str(export_html) if export_html else None,
            )
        except OSError as exc:
            _fail(f"{exc.filename}: {exc.strerror}")
        for target in (export_svg, export_html):
            if target is not None:
                typer.echo(f"saved {target}", err=True)
    if code:
        raise typer.Exit(code)


# -- gate and diff ---------------------------------------------------------------------------


@app.command()
def gate(
    gateway: Annotated[
        str, typer.Option(help="The gateway's base URL (or its /chat/completions URL).")
    ],
    suite: Annotated[
        list[str] | None,
        typer.Option(
            help="A suite file, or builtin:anthropic|gemini|responses|openai|all (default all); "
            "repeatable."
        ),
    ] = None,
    only: Annotated[
        list[str] | None,
        typer.Option(help="Run only scenarios whose name matches this glob; repeatable."),
    ] = None,
    upstream_host: Annotated[str, typer.Option(help="Where the replay upstream binds.")] = (
        "127.0.0.1"
    ),
    upstream_port: Annotated[
        int, typer.Option(help="The replay upstream's port (point the gateway at it).", min=0)
    ] = 0,
    out: Annotated[
        Path, typer.Option(help="Folder for the gateway's recorded streams.", metavar="DIR")
    ] = Path("sseconform-gate"),
    fmt: Annotated[str, typer.Option("--format", help="text, json, junit or github.")] = "text",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the report here.", metavar="FILE")
    ] = None,
    key: Annotated[
        str | None,
        typer.Option(
            help="Bearer key for the gateway (default: $SSECONFORM_GATEWAY_KEY).",
            show_default=False,
        ),
    ] = None,
    model: Annotated[
        list[str] | None,
        typer.Option(help="DIALECT=NAME: the model asked of the gateway; repeatable."),
    ] = None,
    speed: Annotated[
        float | None, typer.Option(help="Upstream timing: 1 recorded, 0 fastest.", min=0)
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(help="Seconds without a byte before a scenario gives up.", min=0.001),
    ] = None,
    force: Annotated[bool, typer.Option(help="Reuse a non-empty --out folder.")] = False,
) -> None:
    """Grade a running gateway: replay is its upstream, each scenario's stream is recorded,
    checked and compared with what the upstream sent. Exit 1 when a scenario fails."""
    import fnmatch

    from sseconform.gate import report
    from sseconform.gate.runner import SuiteResult, run_suite, slug
    from sseconform.gate.suite import load_suite

    if fmt not in report.FORMATS:
        _fail(f"unknown format {fmt!r}; formats: {', '.join(report.FORMATS)}")
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not force:
        _fail(f"{out}: exists and is not empty (use --force to write into it, or another --out)")
    if output is not None and output.exists() and not force:
        _fail(f"{output}: exists (use --force to replace it)")
    models: dict[str, str] = {}
    for item in model or []:
        name, sep, value = item.partition("=")
        if not sep or not value:
            _fail(f"--model {item!r}: give DIALECT=NAME")
        models[name.strip()] = value.strip()
    results: list[SuiteResult] = []
    try:
        suites = [load_suite(s) for s in (suite or ["builtin:all"])]
        for su in suites:
            bad = set(models) - set(su.models)
            if bad:
                _fail(f"--model: unknown dialect(s) {', '.join(sorted(bad))}")
            su.models.update(models)
            if speed is not None:
                su.speed = speed
            if timeout is not None:
                su.timeout = timeout
    except SseconformError as exc:
        _fail(str(exc))
    key = key or os.environ.get("SSECONFORM_GATEWAY_KEY")
    from sseconform.replay.server import ReplayServer

    if not ReplayServer.is_loopback(upstream_host):
        typer.echo(
            f"sseconform: warning: the replay upstream binds {upstream_host}, not loopback: "
            "anyone who can reach it can read the recordings",
            err=True,
        )

    def chosen(sc: Any) -> bool:
        return not only or any(fnmatch.fnmatchcase(sc.name, pat) for pat in only)

    def started(url: str) -> None:
        typer.echo(f"sseconform gate: upstream (replay) on {url}", err=True)

    def done(r: Any) -> None:
        mark = "PASS" if r.passed else "FAIL"
        typer.echo(f"  {mark} {r.name} ({r.seconds:.2f} s)", err=True)

    try:
        for su in suites:
            results.append(
                run_suite(
                    su,
                    gateway,
                    str(out / slug(su.name)) if len(suites) > 1 else str(out),
                    upstream_host=upstream_host,
                    upstream_port=upstream_port,
                    key=key,
                    select=chosen,
                    on_start=started,
                    on_result=done,
                )
            )
    except SseconformError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot run the upstream on {upstream_host}:{upstream_port}: {exc.strerror or exc}")
    if not any(r.scenarios for r in results):
        _fail("no scenario matched --only")
    import io

    buf = io.StringIO()
    for r in results:
        report.write(r, buf, fmt)
    if output is None:
        sys.stdout.write(buf.getvalue())
    else:
        output.write_text(buf.getvalue(), encoding="utf-8")
    if not all(r.passed for r in results):
        raise typer.Exit(1)


@app.command()
def diff(
    upstream: Annotated[
        str, typer.Argument(help="The upstream's stream: native or chunks, raw or a recording.")
    ],
    gateway: Annotated[str, typer.Argument(help="The gateway's chunk stream (raw or recording).")],
    dialect: Annotated[
        str | None,
        typer.Option("--from", help="The upstream's dialect (default: detected)."),
    ] = None,
    usage: Annotated[bool, typer.Option(help="Compare the token counts too.")] = False,
    prefix: Annotated[
        bool, typer.Option(help="The upstream failed mid-stream: the gateway may stop short.")
    ] = False,
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Compare what a gateway's stream means with what its upstream sent; exit 1 if they differ.

    Text, reasoning, tool calls (names; arguments as JSON), finish reasons, usage and errors;
    each difference is located in both streams (frame and byte offset).
    """
    from sseconform.gate import report
    from sseconform.gate.content import content_of
    from sseconform.gate.diff import compare
    from sseconform.replay.plan import load

    _check_dialect(dialect)
    if fmt not in ("text", "json"):
        _fail(f"unknown format {fmt!r}; formats: text, json")
    try:
        a = load(upstream)
        b = load(gateway)
    except SseconformError as exc:
        _fail(str(exc))
    ca = content_of([x for _, x in a.reads], dialect)
    cb = content_of([x for _, x in b.reads], "openai")
    diffs = compare(ca, cb, usage=usage, prefix_only=prefix)
    report.write_diff(diffs, sys.stdout, fmt, upstream, gateway)
    if diffs:
        raise typer.Exit(1)


# -- translate -------------------------------------------------------------------------------


@app.command()
def translate(
    source: Annotated[
        str,
        typer.Argument(help="A raw native body, a recording, or - for stdin.", metavar="IN"),
    ],
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write here (default: stdout).", metavar="OUT"),
    ] = None,
    dialect: Annotated[
        str | None,
        typer.Option("--from", help="anthropic, gemini, responses or openai (default: detected)."),
    ] = None,
    include_usage: Annotated[
        bool, typer.Option(help="End with the usage chunk (choices: []), as when asked for.")
    ] = False,
    model: Annotated[str | None, typer.Option(help="The model name every chunk carries.")] = None,
    force: Annotated[bool, typer.Option(help="Replace an existing output file.")] = False,
) -> None:
    """Translate a native stream to chat.completion.chunk frames (the reference output).

    A raw body gives a raw SSE body; a recording gives a recording whose chunks keep the
    arrival time of the native event they came from.
    """
    from sseconform import translate as tr

    _check_dialect(dialect)
    if output is not None and output.exists() and not force:
        _fail(f"{output}: exists (use --force to replace it)")
    fp = _open_input(source)
    from sseconform.recording.format import looks_like_recording

    with fp:
        head = fp.read(64 * 1024)
        if looks_like_recording(head[:64]):
            _translate_recording(
                source, head + fp.read(), output, dialect, include_usage, model, force
            )
            return

        def chunks() -> Iterator[bytes]:  # streamed: memory does not grow with the input
            yield head
            while piece := fp.read(256 * 1024):
                yield piece

        pieces = tr.translate_body(chunks(), dialect, include_usage=include_usage, model=model)
        if output is None:
            for piece in pieces:
                sys.stdout.buffer.write(piece)
            sys.stdout.buffer.flush()
            return
        try:
            with open(output, "wb" if force else "xb") as out:
                for piece in pieces:
                    out.write(piece)
        except OSError as exc:
            _fail(f"{output}: {exc.strerror}")


def _translate_recording(
    source: str,
    data: bytes,
    output: Path | None,
    dialect: str | None,
    include_usage: bool,
    model: str | None,
    force: bool,
) -> None:
    """Recording in, recording out: each chunk leaves when its native event arrived."""
    import io
    from datetime import datetime

    from sseconform import providers
    from sseconform import translate as tr
    from sseconform.recording.format import (
        RecordingError,
        RecordingReader,
        RecordingWriter,
        Response,
    )

    try:
        reader = RecordingReader(io.BytesIO(data), source)
        reads = list(reader.reads())
    except RecordingError as exc:
        _fail(f"{exc.path}: line {exc.line}: {exc.message}")
    body = b"".join(b for _, b in reads)
    req = reader.request or {}
    url = req.get("url") if isinstance(req.get("url"), str) else None
    chosen = dialect or providers.detect(body, url) or providers.OPENAI
    try:
        stamp = int(datetime.fromisoformat(str(reader.header.get("created"))).timestamp())
    except ValueError:
        stamp = 0
    resp = reader.response
    out_reads = tr.translate_reads(
        reads,
        chosen,
        status=resp.status if resp is not None else 200,
        include_usage=include_usage,
        model=model,
        created=stamp,
        t_error=(resp.t or 0.0) if resp is not None else 0.0,
    )
    if output is None:
        sys.stdout.buffer.write(b"".join(b for _, b in out_reads))
        return
    head = Response(
        200, "OK", "HTTP/1.1", [("content-type", "text/event-stream")], resp.t if resp else 0.0
    )
    try:
        writer = RecordingWriter(
            output,
            request=reader.request,
            extra={"translated_from": {"dialect": chosen, "recording": Path(source).name}},
            force=force,
        )
    except OSError as exc:
        _fail(f"{output}: {exc.strerror}")
    writer.response(head, t=head.t)
    for when, piece in out_reads:
        writer.read(when, piece)
    writer.close(
        complete=reader.complete,
        reason=reader.end.reason if reader.end else "eof",
        t=out_reads[-1][0] if out_reads else 0.0,
    )
