"""The human format of every command: one line per finding, grouped by subject (a checked
file, a gate scenario), then the command's own sections (``check``'s totals, the gate's
scorecard, ``load``'s table).

A finding's line is the same everywhere: ``[path:line: ]rule severity[ name]: message
(frame, byte, pointer)``. The byte offset, frame and pointer go in parentheses, so
``path:line:`` stays what editors and CI problem matchers expect (a line, not a column).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TextIO

from sseconform.api import FileResult
from sseconform.findings import Finding
from sseconform.report.subject import Subject, where
from sseconform.report.summary import plural, subjects, summary
from sseconform.rules.catalog import lookup
from sseconform.rules.finding import split_key
from sseconform.safetext import printable


def location(path: str, kind: str, d: Finding) -> str:
    """``path:line``; in a recording the line counts in the recorded body (``path#body:line``).

    Findings about the HTTP response have no line: just the path.
    """
    if not d.line:
        return printable(path)
    return f"{printable(path)}{'#body' if kind == 'recording' else ''}:{d.line}"


def finding_line(f: Finding, at: str = "", unit: str = "frame") -> str:
    """One finding as every text report prints it: where it is (``at``: a file's line; none
    under a heading that says it), the rule (a baseline's key: ``E002``,
    ``diff:changed:finish_reason``), its severity, a grammar rule's name and invariant, the
    message, then frame, byte and pointer."""
    named = f" {f.name}" if f.source == "check" else ""
    inv = f" [{f.invariant}]" if f.invariant else ""
    known = " (known)" if f.known else ""
    place = where(f, unit)
    return (
        (f"{at}: " if at else "")
        + f"{f.key} {f.severity.value}{known}{named}{inv}: {f.message}"
        + (f" ({place})" if place else "")
    )


def line_for(path: str, d: Finding, kind: str = "sse") -> str:
    """A checked file's finding, at ``path:line``."""
    return finding_line(d, location(path, kind, d))


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


def _put(out: TextIO, line: str) -> None:
    """One line of the report, with every control character made visible (a file name with a
    newline or an escape sequence cannot forge a line or move the cursor)."""
    out.write(printable(line) + "\n")


def write_subjects(groups: Sequence[Subject], out: TextIO, helped: set[str] | None = None) -> None:
    """Every command's findings: each subject (under its heading, indented, when it has one;
    else each line at its file's line), why it could not be checked, its findings with the
    bytes at them, then the lines its command adds (:attr:`Subject.notes`). The first
    finding of each rule is followed by where its docs are (``helped``: the rules already
    so followed, across calls)."""
    helped = set() if helped is None else helped
    for s in groups:
        pad = "    " if s.heading else ""
        if s.heading:
            _put(out, s.heading)
        if s.error is not None:
            _put(out, f"{pad}{s.name}: cannot check: {s.error}")
        for f in s.findings:
            _put(out, pad + finding_line(f, "" if s.heading else _at(s, f), s.unit))
            if f.excerpt:
                _put(out, f"{pad}  | {f.excerpt}")
            if f.rule_id not in helped:
                helped.add(f.rule_id)
                _put(out, f"{pad}  help: sseconform rule {f.rule_id}")
        for line in s.notes:
            _put(out, pad + line)


def _at(s: Subject, f: Finding) -> str:
    """``path:line`` of a finding in a subject's file (``path#body:line`` in a recording)."""
    path = s.artifact or s.name
    return location(path, "sse" if s.lines else "recording", f)


def write(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    """``check``'s report: each file's findings, then the totals."""
    write_subjects(subjects(results), out)
    out.write(totals(results, strict) + "\n")


def write_quiet(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    """``-q``: the findings and the files that could not be checked, nothing else."""
    for r in results:
        if r.error is not None:
            _put(out, f"{r.path}: cannot check: {r.error}")
        for d in r.findings:
            _put(out, line_for(r.path, d, r.kind))


def counted(counts: Mapping[str, int], examples: Mapping[str, str] | None = None) -> list[str]:
    """Findings counted by key, most first, each with its rule's severity and name (and an
    example, when a command keeps one): ``check --statistics`` and ``load``'s table."""
    width = len(str(max(counts.values(), default=0)))
    lines = []
    for key, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        try:
            rule = lookup(split_key(key).rule_id)
            named = f" {rule.name}" if rule.name != rule.code else ""  # the gate's: its key
            said = f"  [{rule.severity.value}]{named}"
        except KeyError:  # a saved load report's key no rule has now
            said = ""
        lines.append(printable(f"{n:>{width}}  {key}{said}"))
        if examples and key in examples:
            lines.append(f"{'':>{width}}  e.g. {printable(examples[key])[:150]}")
    return lines


def statistics(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    """``--statistics``: how many findings of each code (shown and held back), most first."""
    counts: dict[str, int] = {}
    for r in results:
        for d in r.findings:
            counts[d.code] = counts.get(d.code, 0) + 1
        for code, n in r.suppressed.items():
            counts[code] = counts.get(code, 0) + n
    for line in counted(counts):
        out.write(line + "\n")
    out.write(totals(results, strict) + "\n")
