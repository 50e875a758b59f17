"""``sseconform``: check, rules, rule.

Exit codes: 0 no error; 1 errors (or warnings under ``--strict``); 2 unusable input or bad
arguments; 3 an internal error (a bug: please report it); 130 interrupted.
"""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path
from typing import Annotated, NoReturn

import typer

from sseconform import __version__
from sseconform.errors import SseconformError, UsageError

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
