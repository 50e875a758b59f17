"""Shared pieces of the commands: the typer app, the one-line failure, input opening."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import IO, Annotated, Any, NoReturn

import typer

from sseconform.safetext import printable
from sseconform.version import __version__

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Record, translate and check the SSE streams of LLM APIs and gateways.",
    context_settings={"help_option_names": ["-h", "--help"]},
)


def fail(message: str, code: int = 2) -> NoReturn:
    """Exit with a one-line message (never a traceback; a control character in a file name
    cannot break the line or reach the terminal raw)."""
    typer.echo(f"sseconform: error: {printable(message)}", err=True)
    raise typer.Exit(code)


def holds_data(path: Path) -> bool:
    """An existing file or folder that writing ``path`` would replace: ``/dev/null``, a
    terminal or a pipe hold nothing of the user's, so ``-o /dev/null`` is not refused."""
    return path.is_file() or path.is_dir()


def refuse_overwrite(paths: list[Path | None], force: bool) -> None:
    """Stop before a run whose output would replace a file (unless ``--force``): nothing the
    user has is overwritten silently."""
    for path in paths:
        if path is not None and holds_data(path) and not force:
            fail(f"{path}: exists (use --force to replace it)")


def check_dialect(dialect: str | None) -> None:
    from sseconform.providers import DIALECTS

    if dialect is not None and dialect not in DIALECTS:
        fail(f"unknown dialect {dialect!r}; dialects: {', '.join(DIALECTS)}")


def open_input(source: str) -> IO[bytes]:
    """A file to read, or standard input for ``-``; a clear one-line error otherwise."""
    try:
        return sys.stdin.buffer if source == "-" else open(source, "rb")
    except FileNotFoundError:
        fail(f"{source}: no such file")
    except IsADirectoryError:
        fail(f"{source}: is a directory")
    except OSError as exc:
        fail(f"{source}: {exc.strerror}")


def color_settings() -> dict[str, Any]:
    """Console settings from the environment, the same for every command that draws:
    ``NO_COLOR`` (any value) means no escape codes at all; otherwise ``FORCE_COLOR`` (any
    value but ``0``) means colour even when the output is not a terminal."""
    if os.environ.get("NO_COLOR"):
        return {"color_system": None, "no_color": True}
    force = os.environ.get("FORCE_COLOR")
    if force and force != "0":
        return {"force_terminal": True}
    return {}


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
