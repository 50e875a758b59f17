"""GitHub Actions workflow commands: an annotation per error and warning, on the file and
line, for every command's findings.

Infos are counted in the closing line but not annotated: a keep-alive comment on every
stream would bury the findings that matter. A finding the baseline accepts is a notice, and
so is a baseline entry no longer seen. For a recording, ``line`` counts lines of the recorded
body, not of the file, so it is left out of the annotation and given in the message.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from sseconform.api import FileResult
from sseconform.report.subject import Subject
from sseconform.report.summary import subjects
from sseconform.report.text import totals
from sseconform.rules.catalog import Severity
from sseconform.safetext import printable

__all__ = ["write", "write_annotations"]


def _data(s: str) -> str:
    """A command's text: control characters made visible (ESC, BEL and a newline in a file
    name cannot reach the runner raw or start a command of their own), ``%`` escaped."""
    return printable(s).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(s: str) -> str:
    return _data(s).replace(":", "%3A").replace(",", "%2C")


def _command(level: str, loc: str, title: str, text: str) -> str:
    """``::level file=...,line=...,title=...::text``, escaped; ``loc`` may be empty."""
    props = ",".join(p for p in (loc, f"title={_prop(title)}") if p)
    return f"::{level} {props}::{_data(text)}\n"


def write_annotations(
    subjects: Sequence[Subject], out: TextIO, closing: str, *, strict: bool = False
) -> None:
    """Every subject's annotations, then the closing line (the command's totals)."""
    for s in subjects:
        file = f"file={_prop(s.artifact)}" if s.artifact else ""
        if s.error is not None:
            out.write(_command("error", file, "sseconform", s.error))
            continue
        for f in s.findings:
            if f.severity is Severity.INFO and not f.known:
                continue
            if f.known:
                level = "notice"
            else:
                level = "error" if f.severity is Severity.ERROR or strict else "warning"
            loc = file + (f",line={f.line}" if s.lines and f.line and file else "")
            head = f"{f.key} {f.name}" if f.source == "check" else f.key
            title = " ".join(p for p in (s.label, head, "(known)" if f.known else "") if p)
            place = s.place(f)
            text = f.message + (f" ({place})" if place else "")
            out.write(_command(level, loc, title, text))
        for k in s.fixed:
            text = f"{s.label + ': ' if s.label else ''}baseline entry {k} no longer happens: "
            out.write(_command("notice", file, "sseconform baseline", text + "drop it from "
                               "the baseline"))  # fmt: skip
    out.write(_data(closing) + "\n")


def write(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    write_annotations(subjects(results), out, totals(results, strict), strict=strict)
