"""``sseconform check``: streams against the grammar, the schemas and the invariants."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, TextIO

import typer

from sseconform.cli.app import app, fail, holds_data
from sseconform.errors import SseconformError, UsageError
from sseconform.mask import open_text
from sseconform.safetext import printable

if TYPE_CHECKING:
    from sseconform.api import FileResult
    from sseconform.config import CheckConfig
    from sseconform.report import Reporter


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
            help="text, json, junit, github, sarif or html (one self-contained page).",
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
    grammar: Annotated[
        str | None,
        typer.Option(
            "--grammar",
            "-g",
            help="chat (default), anthropic, responses, open-responses, gemini, or auto (from "
            "the first event).",
            show_default=False,
            metavar="GRAMMAR",
        ),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            help="Known findings (a check baseline): reported as known, they do not fail.",
            metavar="FILE",
        ),
    ] = None,
    write_baseline: Annotated[
        Path | None,
        typer.Option(
            help="Write a baseline accepting today's errors and warnings (updates --baseline "
            "FILE in place; another existing file needs --force).",
            metavar="FILE",
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(help="Let --output or --write-baseline replace an existing file."),
    ] = False,
    statistics: Annotated[
        bool, typer.Option("--statistics", help="Count the findings per code instead (text).")
    ] = False,
    exit_zero: Annotated[
        bool,
        typer.Option("--exit-zero", help="Exit 0 even with findings (2 still means bad input)."),
    ] = False,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="Only the findings: no help lines, no totals.")
    ] = False,
    resumed: Annotated[
        bool,
        typer.Option(
            "--resumed",
            help="Responses streams resumed mid-sequence (starting_after): items begun before "
            "the first event are taken as they come. A recording's URL says it by itself.",
        ),
    ] = False,
    starting_after: Annotated[
        int | None,
        typer.Option(
            help="The starting_after the resumed stream was asked with (implies --resumed): "
            "its first event must be number N+1.",
            min=0,
            metavar="N",
        ),
    ] = None,
    non_streaming: Annotated[
        bool,
        typer.Option(
            "--non-streaming",
            help="The bodies answer Gemini's non-streaming generateContent: one JSON object "
            "each (--grammar gemini). A recording's URL says it by itself.",
        ),
    ] = False,
    request: Annotated[
        Path | None,
        typer.Option(
            "--request",
            help="The request the streams answer (a JSON body): what only it decides (a "
            "forced function may finish with stop, F007). A recording holds its own.",
            metavar="FILE",
        ),
    ] = None,
) -> None:
    """Check streams against the chunk grammar, the JSON Schemas and the five invariants."""
    from sseconform import baseline as bl
    from sseconform import config as cfg
    from sseconform.api import FileResult, baseline_of, check_file
    from sseconform.errors import InputError
    from sseconform.paths import expand_paths

    try:
        conf = cfg.resolve(
            config=config, select=select, ignore=ignore, strict=strict, fmt=fmt,
            grammar=grammar, max_per_code=max_per_code,
        )  # fmt: skip
        reporter = _reporter(conf.format, statistics, quiet)
        files = list(expand_paths(paths, warn=_warn))
        if output is not None:
            _refuse_output(output, files, force)
        known = bl.load(str(baseline), "check") if baseline is not None else None
        if write_baseline is not None:
            updating = str(baseline) if baseline is not None else None
            bl.check_target(str(write_baseline), updating, force=force)
    except SseconformError as exc:
        fail(str(exc))
    _declared(conf, resumed, starting_after, non_streaming)
    if request is not None:
        _asked(conf, request)
    if files.count("-") > 1:
        fail("standard input (-) can be given only once")
    is_strict = conf.strict

    results: list[FileResult] = []
    for name in files:
        try:
            results.append(check_file(name, conf.settings, grammar=conf.grammar))
        except InputError as exc:
            results.append(FileResult(name, error=exc.reason))
            typer.echo(f"sseconform: error: {printable(str(exc))}", err=True)

    if known is not None:
        for r in results:
            r.apply(known)
    if conf.format == "sarif":
        from sseconform.api import add_record_lines

        add_record_lines(results)  # code scanning annotates a recording's own lines
    if write_baseline is not None and any(r.error is not None for r in results):
        typer.echo(
            f"sseconform check: baseline not written to {write_baseline}: not every input "
            "could be checked",
            err=True,
        )
    elif write_baseline is not None:
        try:
            ran = [r.path for r in results if r.error is None]
            bl.rewrite(baseline_of(results), str(write_baseline), ran, force=force)
        except SseconformError as exc:
            fail(str(exc))
        typer.echo(f"sseconform check: baseline written to {write_baseline}", err=True)

    if output is not None:
        try:
            with open_text(output) as out:
                reporter(results, out, is_strict)
        except OSError as exc:
            fail(f"{output}: cannot write the report: {exc.strerror}")
    else:
        reporter(results, sys.stdout, is_strict)
    if any(r.error is not None for r in results):
        raise typer.Exit(2)
    if exit_zero:
        raise typer.Exit(0)
    raise typer.Exit(0 if all(r.ok(strict=is_strict) for r in results) else 1)


def _reporter(fmt: str, statistics: bool, quiet: bool) -> Reporter:
    """The writer for ``--format`` (``--statistics`` and ``-q`` are text reports)."""
    from sseconform.report import get_reporter
    from sseconform.report import text as text_report

    if (statistics or quiet) and fmt != "text":
        what = "--statistics" if statistics else "--quiet"
        raise UsageError(f"{what} is a text report; it does not combine with --format {fmt}")
    if statistics:
        return text_report.statistics
    if quiet:
        return text_report.write_quiet
    if fmt == "html":
        return _html_reporter
    try:
        return get_reporter(fmt)
    except ValueError as exc:
        raise UsageError(f"{exc}, html") from None


def _warn(message: str) -> None:
    typer.echo(f"sseconform: warning: {printable(message)}", err=True)


def _refuse_output(output: Path, inputs: list[str], force: bool) -> None:
    """``-o`` never replaces one of the inputs, and another existing file only with
    ``--force``: a report cannot overwrite what the user recorded."""
    if holds_data(output):
        target = os.path.realpath(output)
        if any(f != "-" and os.path.realpath(f) == target for f in inputs):
            raise UsageError(f"{output}: is one of the inputs; write the report elsewhere")
        if not force:
            raise UsageError(f"{output}: exists (use --force to replace it)")


def _html_reporter(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    """``--format html``: the page, with each finding's event bytes read back from its file."""
    from sseconform.api import event_bytes
    from sseconform.html.check import render

    events = {
        r.path: event_bytes(r.path, [d.offset or 0 for d in r.findings if d.line])
        for r in results
        if r.error is None
    }
    out.write(render(results, strict, events))


def _asked(conf: CheckConfig, request: Path) -> None:
    """``--request``: the body the streams answer, read for what only a request decides."""
    import json

    from sseconform.api import forces_function

    try:
        body = json.loads(request.read_bytes())
    except OSError as exc:
        fail(f"{request}: {exc.strerror or exc}")
    except ValueError as exc:
        fail(f"{request}: not JSON: {exc}")
    if not isinstance(body, dict):
        fail(f"{request}: a request body is a JSON object, not {type(body).__name__}")
    conf.settings.forced_function = forces_function(body)


def _declared(
    conf: CheckConfig, resumed: bool, starting_after: int | None, non_streaming: bool
) -> None:
    """What the user declared of the streams that no body says of itself (a recording's URL
    says it too: see ``api``)."""
    if resumed or starting_after is not None:
        conf.settings.resumed = True
        conf.settings.starting_after = starting_after
    if non_streaming:
        if conf.grammar != "gemini":
            fail("--non-streaming: only Gemini's generateContent is read whole (--grammar gemini)")
        conf.settings.whole = True
