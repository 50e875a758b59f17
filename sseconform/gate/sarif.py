"""``gate --format sarif``: SARIF 2.1.0 for GitHub code scanning, as ``check`` writes it.

One run; every finding of every scenario is a result at the scenario's recorded gateway
stream (the artifact ``--out`` keeps), its event's frame and byte offset in the properties.
A finding the baseline accepts is reported with ``baselineState: unchanged`` (and as a
note), a new one as ``new``; a baseline entry no longer seen is a note that it was fixed.
Each rule is described once: a grammar rule from its docs, a timing rule from its module,
the gate's own kinds (``diff:*``, ``expect:*``, ...) from their explanation. Pure: results in,
one document out.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from sseconform.gate.explain import explain, first_sentence
from sseconform.gate.finding import Finding
from sseconform.gate.result import ScenarioResult, SuiteResult
from sseconform.gate.timing_rules import find as find_timing
from sseconform.rules.catalog import RULES, doc
from sseconform.version import __version__

__all__ = ["document", "write"]

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _rule(f: Finding) -> dict[str, Any]:
    """How the rule behind a finding is described once in the run."""
    key = f.key
    if f.source == "check" and f.code in RULES:
        rule, d = RULES[f.code], doc(f.code)
        return {
            "id": key,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": d.what},
            "help": {"text": f"{d.why}\n\nFix: {d.fix}\n\nMore: sseconform rule {f.code}"},
            "properties": {"tags": [rule.grammar, "check"]},
        }
    timing = find_timing(f.code) if f.source == "timing" else None
    if timing is not None:
        return {
            "id": key,
            "name": timing.code,
            "shortDescription": {"text": timing.summary},
            "fullDescription": {"text": timing.doc.what},
            "help": {"text": f"{timing.doc.why}\n\nFix: {timing.doc.fix}\n\n"
                             f"More: sseconform rule {timing.key}"},
            "properties": {"tags": ["timing"]},
        }  # fmt: skip
    text = explain(f.source, f.code) or key
    return {
        "id": key,
        "name": key.replace(":", "-"),
        "shortDescription": {"text": first_sentence(text)},
        "fullDescription": {"text": text},
        "properties": {"tags": [f.source]},
    }


def _level(f: Finding) -> str:
    if f.known:
        return "note"
    return {"error": "error", "warning": "warning"}.get(f.severity, "note")


def _uri(path: str) -> str:
    """A path as a URI reference (forward slashes; spaces and % escaped)."""
    return path.replace("\\", "/").replace("%", "%25").replace(" ", "%20")


def _result(s: ScenarioResult, f: Finding, index: int) -> dict[str, Any]:
    where = f" (frame {f.frame}, byte {f.offset})" if f.frame is not None else ""
    out: dict[str, Any] = {
        "ruleId": f.key,
        "ruleIndex": index,
        "level": _level(f),
        "message": {"text": f"{s.name}: {f.message}{where}"},
        "baselineState": "unchanged" if f.known else "new",
        "properties": {
            "scenario": s.name,
            "suite": s.suite,
            "endpoint": s.endpoint,
            "verdict": s.verdict,
            "frame": f.frame,
            "byteOffset": f.offset,
        },
    }
    if s.recording:
        location = {"artifactLocation": {"uri": _uri(s.recording)}}
        out["locations"] = [{"physicalLocation": location}]
    return out


def document(results: list[SuiteResult]) -> dict[str, Any]:
    """The SARIF document for one gate run (any number of suites)."""
    scenarios = [s for r in results for s in r.scenarios]
    rules: dict[str, dict[str, Any]] = {}
    for s in scenarios:
        for f in s.findings:
            rules.setdefault(f.key, _rule(f))
    index = {key: i for i, key in enumerate(rules)}
    out = [_result(s, f, index[f.key]) for s in scenarios for f in s.findings]
    fixed = [
        {
            "level": "note",
            "message": {"text": f"{s.name}: baseline entry {key} no longer happens (fixed)"},
        }
        for s in scenarios
        for key in s.fixed
    ]
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "sseconform",
                "version": __version__,
                "informationUri": "https://pypi.org/project/sseconform/",
                "rules": list(rules.values()),
            }
        },
        "results": out,
        "invocations": [
            {
                "executionSuccessful": all(r.passed for r in results),
                "toolExecutionNotifications": fixed,
            }
        ],
        "properties": {"gateway": results[0].gateway if results else None},
    }
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def write(results: list[SuiteResult], out: TextIO) -> None:
    json.dump(document(results), out, indent=2, ensure_ascii=False)
    out.write("\n")
