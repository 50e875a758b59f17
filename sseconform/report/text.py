"""The human format: one line per diagnostic, ``path:line:``, then totals.

The byte offset, frame and pointer go in parentheses, so ``path:line:`` stays what editors
and CI problem matchers expect (a line, not a column).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from sseconform.api import FileResult
from sseconform.findings import Finding
from sseconform.report.subject import where
from sseconform.report.summary import summary
from sseconform.rules.catalog import RULES
from sseconform.safetext import printable


def location(path: str, kind: str, d: Finding) -> str:
    """``path:line``; in a recording the line counts in the recorded body (``path#body:line``).

    Findings about the HTTP response have no line: just the path.
    """
    if not d.line:
        return printable(path)
    return f"{printable(path)}{'#body' if kind == 'recording' else ''}:{d.line}"


def line_for(path: str, d: Finding, kind: str = "sse") -> str:
    inv = f" [{d.invariant}]" if d.invariant else ""
    loc = where(d)
    return f"{location(path, kind, d)}: {d.code} {d.severity.value} {d.name}{inv}: {d.message}" + (
        f" ({loc})" if loc else ""
    )


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def totals(results: Sequence[FileResult], strict: bool) -> str:
    """The closing line every format can share."""
    s = summary(results, strict)
    verdict = "ok" if s["ok"] else "FAILED"
    unusable = f" ({s['unusable']} could not be checked)" if s["unusable"] else ""
    return (
        f"{verdict}: {plural(s['files'], 'file')} checked, {s['failed']} failed{unusable}; "
        f"{plural(s['errors'], 'error')}, {plural(s['warnings'], 'warning')}, "
        f"{plural(s['infos'], 'info')}"
        + (f"; {s['known']} known (baseline)" if s["known"] else "")
        + (f"; {s['baseline_fixed']} fixed (baseline)" if s["baseline_fixed"] else "")
        + (" (strict: warnings fail)" if strict else "")
    )


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


def _put(out: TextIO, line: str) -> None:
    """One line of the report, with every control character made visible (a file name with a
    newline or an escape sequence cannot forge a line or move the cursor)."""
    out.write(printable(line) + "\n")


def write(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    """Each finding; the first of each code is followed by where its docs are."""
    helped: set[str] = set()
    for r in results:
        if r.error is not None:
            _put(out, f"{r.path}: cannot check: {r.error}")
            continue
        for d in r.diagnostics:
            _put(out, line_for(r.path, d, r.kind))
            if d.code not in helped:
                helped.add(d.code)
                _put(out, f"  help: sseconform rule {d.code}")
        for code, n in sorted(r.suppressed.items()):
            _put(out, f"{r.path}: {code}: {plural(n, 'more diagnostic')} not shown")
        for line in baseline_lines(r):
            _put(out, line)
    out.write(totals(results, strict) + "\n")


def write_quiet(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    """``-q``: the findings and the files that could not be checked, nothing else."""
    for r in results:
        if r.error is not None:
            _put(out, f"{r.path}: cannot check: {r.error}")
        for d in r.diagnostics:
            _put(out, line_for(r.path, d, r.kind))


def statistics(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    """``--statistics``: how many findings of each code (shown and held back), most first."""
    counts: dict[str, int] = {}
    for r in results:
        for d in r.diagnostics:
            counts[d.code] = counts.get(d.code, 0) + 1
        for code, n in r.suppressed.items():
            counts[code] = counts.get(code, 0) + n
    width = len(str(max(counts.values(), default=0)))
    for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        rule = RULES[code]
        out.write(f"{n:>{width}}  {code}  [{rule.severity.value}] {rule.name}\n")
    out.write(totals(results, strict) + "\n")
