"""The JSON contract CI scripts parse: ``{"files": [...], "summary": {...}}``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TextIO

from sseconform.api import FileResult
from sseconform.report.summary import summary


def docs(code: str) -> str:
    """Where a finding's rule is documented: the command that prints its docs."""
    return f"sseconform rule {code}"


def document(results: Sequence[FileResult], strict: bool) -> dict[str, Any]:
    files = [
        {
            "path": r.path,
            "ok": r.ok(strict=strict),
            "kind": r.kind,
            "grammar": r.grammar,
            "error": r.error,
            "bytes": r.bytes,
            "frames": r.frames,
            "diagnostics": [{**d.to_dict(), "docs": docs(d.code)} for d in r.diagnostics],
            "suppressed": dict(sorted(r.suppressed.items())),
            "known": r.known,
            "baseline_fixed": r.fixed,
        }
        for r in results
    ]
    return {"files": files, "summary": summary(results, strict)}


def write(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    json.dump(document(results, strict), out, indent=2, ensure_ascii=False)
    out.write("\n")
