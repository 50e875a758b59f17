"""SARIF 2.1.0, the format GitHub code scanning (and ruff, and most scanners) read: one
writer for every command's findings.

One run; the rules it reports on are described once from their docs (a grammar rule's or the
gate's: id, name, summary, docs, default level, grammar or family and invariant as tags);
each finding is a result at its subject's file, and at its line: a raw stream's line, or for
a recording the line of the file that holds the read the event starts in (its body line goes
in the message and in a ``bodyLine`` property). Infos are ``note`` results; under ``--strict``
warnings are errors, as the exit code says. With a baseline, an accepted finding is
``unchanged`` (a note), any other ``new``, and an entry no longer seen a note that it was
fixed. Pure: subjects in, one document out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, TextIO

from sseconform.api import FileResult
from sseconform.findings import Finding
from sseconform.report.subject import Subject
from sseconform.report.summary import subjects
from sseconform.rules.catalog import Severity, doc, lookup
from sseconform.version import __version__

__all__ = ["document", "sarif", "write"]

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}


def _rule(rule_id: str) -> dict[str, Any]:
    rule = lookup(rule_id)
    d = doc(rule_id)
    tags = ["gate", rule.family] if rule.grammar == "gate" else [rule.grammar]
    return {
        "id": rule_id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": d.what},
        "help": {
            "text": f"{d.why}\n\nWhich clients break: {d.which_clients}\n\nFix: {d.fix}\n\n"
            f"More: sseconform rule {rule_id}"
        },
        "defaultConfiguration": {"level": _LEVEL[rule.severity]},
        "properties": {"tags": [*tags, *([rule.invariant] if rule.invariant else [])]},
    }


def _level(f: Finding, strict: bool) -> str:
    if f.known:
        return "note"
    if strict and f.severity is Severity.WARNING:
        return "error"
    return _LEVEL[f.severity]


def _uri(path: str) -> str:
    """A path as a URI reference (forward slashes; spaces and % escaped)."""
    return path.replace("\\", "/").replace("%", "%25").replace(" ", "%20")


def _result(s: Subject, f: Finding, index: int, strict: bool, baseline: bool) -> dict[str, Any]:
    place = s.place(f)
    text = f"{s.label}: {f.message}" if s.label else f.message
    props: dict[str, Any] = {**s.properties, "frame": f.frame, "byteOffset": f.offset}
    if f.pointer:
        props["pointer"] = f.pointer
    if f.field:
        props["field"] = f.field
    if f.turn != 1:
        props["turn"] = f.turn
    out: dict[str, Any] = {
        "ruleId": f.rule_id,
        "ruleIndex": index,
        "level": _level(f, strict),
        "message": {"text": text + (f" ({place})" if place else "")},
    }
    if baseline:
        out["baselineState"] = "unchanged" if f.known else "new"
    if s.artifact:
        location: dict[str, Any] = {"artifactLocation": {"uri": _uri(s.artifact)}}
        if s.lines and f.line:
            location["region"] = {"startLine": f.line}
        elif f.line:  # in a recorded body (HTTP findings are about the file)
            file_line = s.record_lines.get(f.offset or 0)
            if file_line:
                location["region"] = {"startLine": file_line}
            props["bodyLine"] = f.line
        out["locations"] = [{"physicalLocation": location}]
    out["properties"] = props
    return out


def sarif(
    subjects: Sequence[Subject],
    *,
    strict: bool = False,
    baseline: bool = False,
    successful: bool | None = None,
    properties: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The SARIF document of any command's subjects; ``successful`` defaults to every
    subject having been checked."""
    ids = sorted({f.rule_id for s in subjects for f in s.findings})
    index = {c: i for i, c in enumerate(ids)}
    results = [
        _result(s, f, index[f.rule_id], strict, baseline) for s in subjects for f in s.findings
    ]
    notes = [
        {
            "level": "error",
            "message": {"text": f"cannot check: {s.error}"},
            "locations": [
                {"physicalLocation": {"artifactLocation": {"uri": _uri(s.artifact or s.name)}}}
            ],
        }
        for s in subjects
        if s.error is not None
    ]
    notes += [
        {
            "level": "note",
            "message": {
                "text": f"{s.label or s.name}: baseline entry {key} no longer happens (fixed)"
            },
        }
        for s in subjects
        for key in s.fixed
    ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "sseconform",
                "version": __version__,
                "informationUri": "https://pypi.org/project/sseconform/",
                "rules": [_rule(c) for c in ids],
            }
        },
        "results": results,
        "invocations": [
            {
                "executionSuccessful": (
                    all(s.error is None for s in subjects) if successful is None else successful
                ),
                "toolExecutionNotifications": notes,
            }
        ],
    }
    if properties:
        run["properties"] = dict(properties)
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def document(results: Sequence[FileResult], strict: bool) -> dict[str, Any]:
    """``check``'s SARIF document."""
    used = any(r.known or r.fixed for r in results)
    return sarif(subjects(results), strict=strict, baseline=used)


def dump(doc: dict[str, Any], out: TextIO) -> None:
    json.dump(doc, out, indent=2, ensure_ascii=False)
    out.write("\n")


def write(results: Sequence[FileResult], out: TextIO, strict: bool) -> None:
    dump(document(results, strict), out)
