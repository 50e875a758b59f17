"""``sseconform compare``: two gate reports of the same suites, release against release."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from sseconform.cli.app import app, fail, open_input
from sseconform.errors import SseconformError

if TYPE_CHECKING:
    from sseconform.gate.compare import GateReport


def read_run(path: str) -> GateReport:
    """A gate JSON report read into a run (``-``: standard input); exit 2 when unreadable."""
    from sseconform.gate.compare import read_report

    with open_input(path) as fp:
        data = fp.read()
    try:
        return read_report(path, data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        fail(f"{path}: byte {exc.start}: not UTF-8")
    except SseconformError as exc:
        fail(str(exc))


@app.command()
def compare(
    old: Annotated[str, typer.Argument(help="The earlier run's report (gate --format json).")],
    new: Annotated[str, typer.Argument(help="The later run's report, of the same suites.")],
    fmt: Annotated[
        str, typer.Option("--format", help="text, json or markdown (a PR comment, a summary).")
    ] = "text",
) -> None:
    """What a new release of a gateway broke, fixed and changed: two gate JSON reports
    compared scenario by scenario and error key by error key; exit 1 when something that
    passed now fails, or a failing scenario gained an error key.

    BROKE: passed (or only known deviations) before, fails now. FIXED: the other way.
    CHANGED: failed both times, with other error keys (+gained -lost). MOVED: to or from
    not applicable or not graded. NEW and GONE: scenarios only one run has.
    """
    from sseconform.gate.compare import FORMATS, write_comparison
    from sseconform.gate.compare import compare as compared

    if fmt not in FORMATS:
        fail(f"unknown format {fmt!r}; formats: {', '.join(FORMATS)}")
    c = compared(read_run(old), read_run(new))
    write_comparison(c, sys.stdout, fmt)
    raise typer.Exit(1 if c.regressed else 0)
