"""Totals shared by every reporter, so they all count the same way."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sseconform.api import FileResult
from sseconform.report.subject import Subject
from sseconform.rules.catalog import Severity


def summary(results: Sequence[FileResult], strict: bool) -> dict[str, Any]:
    return {
        "files": len(results),
        "failed": sum(1 for r in results if not r.ok(strict=strict)),
        "unusable": sum(1 for r in results if r.error is not None),
        "errors": sum(r.count(Severity.ERROR) for r in results),
        "warnings": sum(r.count(Severity.WARNING) for r in results),
        "infos": sum(r.count(Severity.INFO) for r in results),
        "suppressed": sum(sum(r.suppressed.values()) for r in results),
        "known": sum(sum(r.known.values()) for r in results),
        "baseline_fixed": sum(len(r.fixed) for r in results),
        "strict": strict,
        "ok": all(r.ok(strict=strict) for r in results),
    }


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def baseline_lines(r: FileResult) -> list[str]:
    """What a baseline changed for one file: the accepted findings, the entries now fixed."""
    lines = []
    if r.known:
        codes = ", ".join(f"{c} x{n}" if n > 1 else c for c, n in r.known.items())
        n = sum(r.known.values())
        lines.append(f"{r.path}: {plural(n, 'known diagnostic')} not shown (baseline: {codes})")
    lines += [
        f"{r.path}: baseline entry {k} no longer happens: drop it from the baseline"
        for k in r.fixed
    ]
    return lines


def subjects(results: Sequence[FileResult]) -> list[Subject]:
    """``check``'s files as report subjects: a raw stream's findings are on its lines, a
    recording's on its body's; what ``--max-per-code`` and the baseline held back follows
    them in the text report."""
    return [
        Subject(
            r.path,
            r.findings if r.error is None else (),
            artifact=r.path,
            lines=r.kind in ("sse", "session"),  # a session's lines are the file's
            unit="message" if r.kind == "session" else "frame",
            record_lines=r.record_lines,
            error=r.error,
            fixed=r.fixed,
            notes=[
                *(
                    f"{r.path}: {code}: {plural(n, 'more diagnostic')} not shown"
                    for code, n in sorted(r.suppressed.items())
                ),
                *baseline_lines(r),
            ]
            if r.error is None
            else (),
        )
        for r in results
    ]
