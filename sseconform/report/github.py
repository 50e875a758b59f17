"""GitHub Actions workflow commands: one annotation per diagnostic, on the file and line.

For a recording, ``line`` counts lines of the recorded body, not of the file, so it is left
out of the annotation and given in the message instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from sseconform.api import FileResult
from sseconform.report.summary import summary
from sseconform.rules.catalog import Severity

_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def _data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(s: str) -> str:
    return _data(s).replace(":", "%3A").replace(",", "%2C")


def write(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    for r in results:
        if r.error is not None:
            out.write(f"::error file={_prop(r.path)},title=sseconform::{_data(r.error)}\n")
            continue
        for d in r.diagnostics:
            level = _LEVEL[d.severity]
            if strict and d.severity is Severity.WARNING:
                level = "error"
            loc = f"file={_prop(r.path)}"
            if r.kind == "sse" and d.line:
                loc += f",line={d.line}"
            where = f"frame {d.frame}, " if d.frame is not None else ""
            where += f"body line {d.line}, " if r.kind != "sse" else ""
            where += f"byte {d.offset}"
            where += f", {d.pointer}" if d.pointer else ""
            title = _prop(f"{d.code} {d.name}")
            out.write(f"::{level} {loc},title={title}::{_data(d.message)} ({where})\n")
    s = summary(results, strict)
    out.write(
        f"sseconform: {s['files']} files, {s['failed']} failed, {s['errors']} errors, "
        f"{s['warnings']} warnings\n"
    )
