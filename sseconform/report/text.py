"""The human format: one line per diagnostic, ``path:line:offset``, then totals."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from sseconform.api import FileResult
from sseconform.diagnostics import Diagnostic
from sseconform.report.summary import summary


def location(path: str, kind: str, d: Diagnostic) -> str:
    """``path:line:offset``; in a recording the line and offset count in the recorded body."""
    return f"{path}{'#body' if kind == 'recording' else ''}:{d.line}:{d.offset}"


def line_for(path: str, d: Diagnostic, kind: str = "sse") -> str:
    where = f"frame {d.frame}" if d.frame is not None else "wire"
    ptr = f" at {d.pointer}" if d.pointer else ""
    inv = f" [{d.invariant}]" if d.invariant else ""
    return (
        f"{location(path, kind, d)}: {d.code} {d.severity.value} {d.name}{inv}: "
        f"{d.message} ({where}{ptr})"
    )


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def write(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    for r in results:
        if r.error is not None:
            out.write(f"{r.path}: cannot check: {r.error}\n")
            continue
        for d in r.diagnostics:
            out.write(line_for(r.path, d, r.kind) + "\n")
        for code, n in sorted(r.suppressed.items()):
            out.write(f"{r.path}: {code}: {_plural(n, 'more diagnostic')} not shown\n")
    s = summary(results, strict)
    verdict = "ok" if s["ok"] else "FAILED"
    out.write(
        f"{verdict}: {_plural(s['files'], 'file')} checked, {s['failed']} failed; "
        f"{_plural(s['errors'], 'error')}, {_plural(s['warnings'], 'warning')}, "
        f"{_plural(s['infos'], 'info')}" + (" (strict: warnings fail)" if strict else "") + "\n"
    )
