"""The JSON of every command that reports findings: each subject (a checked file, a gate
scenario) holds its findings in one shape, each with where its rule is documented, and the
baseline entries it no longer has; the command adds its own fields and sections around them.
``check``'s contract is ``{"files": [...], "summary": {...}}``."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any, TextIO

from sseconform.api import FileResult
from sseconform.findings import Finding
from sseconform.report.summary import summary


def docs(rule_id: str) -> str:
    """Where a finding's rule is documented: the command that prints its docs."""
    return f"sseconform rule {rule_id}"


def findings(found: Iterable[Finding]) -> list[dict[str, Any]]:
    """Findings as every JSON report holds them (:meth:`Finding.to_dict` and ``docs``)."""
    return [{**f.to_dict(), "docs": docs(f.rule_id)} for f in found]


def subject(found: Sequence[Finding], fixed: Sequence[str], **fields: Any) -> dict[str, Any]:
    """One subject: the command's ``fields``, its findings and the baseline entries it no
    longer has."""
    return {**fields, "findings": findings(found), "baseline_fixed": list(fixed)}


def document(results: Sequence[FileResult], strict: bool) -> dict[str, Any]:
    files = [
        subject(
            r.findings,
            r.fixed,
            path=r.path,
            ok=r.ok(strict=strict),
            kind=r.kind,
            grammar=r.grammar,
            error=r.error,
            bytes=r.bytes,
            frames=r.frames,
            suppressed=dict(sorted(r.suppressed.items())),
            known=r.known,
        )
        for r in results
    ]
    return {"files": files, "summary": summary(results, strict)}


def write(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    json.dump(document(results, strict), out, indent=2, ensure_ascii=False)
    out.write("\n")
