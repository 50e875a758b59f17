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


def subjects(results: Sequence[FileResult]) -> list[Subject]:
    """``check``'s files as report subjects: a raw stream's findings are on its lines, a
    recording's on its body's."""
    return [
        Subject(
            r.path,
            r.diagnostics,
            artifact=r.path,
            lines=r.kind == "sse",
            record_lines=r.record_lines,
            error=r.error,
            fixed=r.fixed,
        )
        for r in results
    ]
