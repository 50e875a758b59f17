"""``sseconform``: the console entry point; each command lives in its own module here.

Exit codes: 0 no error; 1 errors (or warnings under ``--strict``); 2 unusable input or bad
arguments; 3 an internal error (a bug: please report it); 130 interrupted.
"""

from __future__ import annotations

import contextlib
import os
import sys

import typer

from sseconform.cli.app import app
from sseconform.mask import RUN, environment_secrets, masked_stdio

# The commands register themselves on import; this order is the order of --help.
# isort: off
from sseconform.cli import check, rules, record, replay, translate, inspect, gate, load, compare  # noqa: F401
from sseconform.cli import demo_gateway  # noqa: F401
# isort: on

__all__ = ["app", "main"]


def main() -> None:
    """Console entry point: never a traceback for the user unless SSECONFORM_DEBUG is set.
    Standard output and error go through the run's masker (:mod:`sseconform.mask`), which
    knows the environment's secrets from the start and each command's as it learns them."""
    RUN.add_all(environment_secrets())
    with masked_stdio(RUN):
        _run()


def _only_the_command(argv: list[str]) -> None:
    """Leave on the app only the command the arguments name (``main`` runs once a process):
    typer builds every registered command's options at each start (reading their
    annotations: 0.08 s of CPU for all eleven), and one is all a run uses. No command named
    (``--help``, a typo): all stay, so the help lists them and an unknown name gets typer's
    own message."""
    if len(argv) < 2:
        return
    chosen = [
        c
        for c in app.registered_commands
        if (c.name or typer.main.get_command_name(getattr(c.callback, "__name__", ""))) == argv[1]
    ]
    if len(chosen) == 1:
        app.registered_commands = chosen


def _run() -> None:
    try:
        _only_the_command(sys.argv)
        app()
    except KeyboardInterrupt:
        typer.echo("sseconform: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        with contextlib.suppress(OSError):
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
