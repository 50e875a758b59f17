"""GitHub Actions workflow commands: an annotation per error and warning, on the file and line.

Infos are counted in the closing line but not annotated: a keep-alive comment on every
stream would bury the findings that matter. For a recording, ``line`` counts lines of the
recorded body, not of the file, so it is left out of the annotation and given in the message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from sseconform.api import FileResult
from sseconform.report.text import totals, where
from sseconform.rules.catalog import Severity
from sseconform.safetext import printable


def _data(s: str) -> str:
    """A command's text: control characters made visible (ESC, BEL and a newline in a file
    name cannot reach the runner raw or start a command of their own), ``%`` escaped."""
    return printable(s).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(s: str) -> str:
    return _data(s).replace(":", "%3A").replace(",", "%2C")


def write(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    for r in results:
        if r.error is not None:
            out.write(f"::error file={_prop(r.path)},title=sseconform::{_data(r.error)}\n")
            continue
        for d in r.diagnostics:
            if d.severity is Severity.INFO:
                continue
            level = "error" if d.severity is Severity.ERROR or strict else "warning"
            loc = f"file={_prop(r.path)}"
            if r.kind == "sse" and d.line:
                loc += f",line={d.line}"
            place = where(d)
            if r.kind != "sse" and d.line:
                place = f"body line {d.line}, {place}"
            title = _prop(f"{d.code} {d.name}")
            text = d.message + (f" ({place})" if place else "")
            out.write(f"::{level} {loc},title={title}::{_data(text)}\n")
        for k in r.fixed:
            text = f"baseline entry {k} no longer happens: drop it from the baseline"
            out.write(f"::notice file={_prop(r.path)},title=sseconform baseline::{_data(text)}\n")
    out.write(_data(totals(results, strict)) + "\n")
