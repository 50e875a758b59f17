"""Release against release: two gate runs of the same suites, read from their JSON reports,
compared scenario by scenario and code by code, so what a new release broke, fixed and
changed reads as one table (a bisection over releases: one ``compare`` per step).

Pure: a report is read into :class:`GateReport`, two runs into a :class:`Comparison`; the writers
(text, JSON, Markdown) take it and a stream.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import IO, Any

from sseconform.errors import UsageError
from sseconform.safetext import printable

__all__ = ["FORMATS", "Comparison", "GateReport", "compare", "read_report", "write_comparison"]

FORMATS = ("text", "json", "markdown")
#: Verdicts that count as passed, and as failed (n/a and not graded are neither).
_PASSED = frozenset({"pass", "known"})
_FAILED = frozenset({"fail", "unreached"})


@dataclass(frozen=True)
class ScenarioVerdict:
    """One scenario of one run: its verdict and the keys of its errors (known ones too)."""

    verdict: str
    errors: frozenset[str]


@dataclass
class GateReport:
    """One gate report: where it came from, the gateway it graded, each scenario's outcome."""

    source: str
    gateway: str
    scenarios: dict[str, ScenarioVerdict]


@dataclass
class Change:
    """One scenario whose outcome moved: its verdicts, and the error keys it gained and lost."""

    name: str
    before: str
    after: str
    gained: list[str] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)


@dataclass
class Comparison:
    old: GateReport
    new: GateReport
    broke: list[Change] = field(default_factory=list)  # passed, now failed
    fixed: list[Change] = field(default_factory=list)  # failed, now passed
    changed: list[Change] = field(default_factory=list)  # failed both times, other codes
    other: list[Change] = field(default_factory=list)  # to or from n/a, not graded
    added: list[str] = field(default_factory=list)  # scenarios only the new run has
    removed: list[str] = field(default_factory=list)  # only the old run has
    same: int = 0

    @property
    def regressed(self) -> bool:
        return bool(self.broke) or any(c.gained for c in self.changed)


def read_report(path: str, text: str) -> GateReport:
    """A gate JSON report (``gate --format json``); a clear error with a location when it
    is not one."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}:{exc.lineno}:{exc.colno}: not JSON: {exc.msg}") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("scenarios"), list):
        raise UsageError(f"{path}: not a gate JSON report (sseconform gate --format json)")
    scenarios: dict[str, ScenarioVerdict] = {}
    for n, s in enumerate(doc["scenarios"]):
        where = f"{path}: scenarios[{n}]"
        if not isinstance(s, dict) or not isinstance(s.get("name"), str):
            raise UsageError(f"{where}: a scenario needs a name")
        if not isinstance(s.get("verdict"), str) or not isinstance(s.get("findings"), list):
            raise UsageError(f"{where} ({s['name']}): a scenario needs a verdict and findings")
        errors = frozenset(
            str(f.get("key"))
            for f in s["findings"]
            if isinstance(f, dict) and f.get("severity") == "error"
        )
        if s["name"] in scenarios:
            raise UsageError(f"{where}: {s['name']!r} twice")
        scenarios[s["name"]] = ScenarioVerdict(s["verdict"], errors)
    return GateReport(path, str(doc.get("gateway") or ""), scenarios)


def compare(old: GateReport, new: GateReport) -> Comparison:
    """What changed from ``old`` to ``new``, scenario by scenario, in the new run's order."""
    out = Comparison(old, new)
    for name, after in new.scenarios.items():
        before = old.scenarios.get(name)
        if before is None:
            out.added.append(name)
            continue
        change = Change(
            name,
            before.verdict,
            after.verdict,
            sorted(after.errors - before.errors),
            sorted(before.errors - after.errors),
        )
        if before.verdict in _PASSED and after.verdict in _FAILED:
            out.broke.append(change)
        elif before.verdict in _FAILED and after.verdict in _PASSED:
            out.fixed.append(change)
        elif before.verdict in _FAILED and after.verdict in _FAILED:
            if change.gained or change.lost:
                out.changed.append(change)
            else:
                out.same += 1
        elif before.verdict != after.verdict:
            out.other.append(change)
        else:
            out.same += 1
    out.removed = [name for name in old.scenarios if name not in new.scenarios]
    return out


def write_comparison(c: Comparison, out: IO[str], fmt: str = "text") -> None:
    if fmt == "json":
        json.dump(_document(c), out, indent=2)
        out.write("\n")
    elif fmt == "markdown":
        _markdown(c, out)
    else:
        _text(c, out)


def _summary(c: Comparison) -> str:
    parts = [
        f"{len(c.broke)} broke",
        f"{len(c.fixed)} fixed",
        f"{len(c.changed)} failing with other codes",
        f"{c.same} unchanged",
    ]
    if c.other:
        parts.append(f"{len(c.other)} moved to or from n/a or not graded")
    if c.added or c.removed:
        parts.append(f"{len(c.added)} new, {len(c.removed)} gone")
    return ", ".join(parts)


def _codes(change: Change) -> str:
    said = [f"+{k}" for k in change.gained] + [f"-{k}" for k in change.lost]
    return " ".join(said) or "-"


def _rows(c: Comparison) -> list[tuple[str, Change]]:
    return (
        [("BROKE", x) for x in c.broke]
        + [("FIXED", x) for x in c.fixed]
        + [("CHANGED", x) for x in c.changed]
        + [("MOVED", x) for x in c.other]
    )


def _text(c: Comparison, out: IO[str]) -> None:
    out.write(printable(f"sseconform compare: {c.old.source} -> {c.new.source}") + "\n")
    rows = _rows(c)
    if rows:
        width = max(len(x.name) for _, x in rows) + 2
        verdicts = max(len(f"{x.before} -> {x.after}") for _, x in rows) + 2
        for what, x in rows:
            moved = f"{x.before} -> {x.after}"
            line = f"  {what:<8} {x.name:<{width}}{moved:<{verdicts}}{_codes(x)}"
            out.write(printable(line.rstrip()) + "\n")
    for name in c.added:
        out.write(printable(f"  NEW      {name} ({c.new.scenarios[name].verdict})") + "\n")
    for name in c.removed:
        out.write(printable(f"  GONE     {name} ({c.old.scenarios[name].verdict})") + "\n")
    out.write(_summary(c) + "\n")


def _markdown(c: Comparison, out: IO[str]) -> None:
    out.write(f"### sseconform compare: `{c.old.source}` -> `{c.new.source}`\n\n")
    out.write(_summary(c) + "\n\n")
    rows = _rows(c)
    if not rows and not c.added and not c.removed:
        return
    out.write("| | scenario | verdict | error keys |\n|---|---|---|---|\n")
    for what, x in rows:
        codes = _codes(x).replace("|", "\\|")
        out.write(f"| {what.lower()} | `{x.name}` | {x.before} -> {x.after} | {codes} |\n")
    for name in c.added:
        out.write(f"| new | `{name}` | {c.new.scenarios[name].verdict} | |\n")
    for name in c.removed:
        out.write(f"| gone | `{name}` | {c.old.scenarios[name].verdict} | |\n")


def _document(c: Comparison) -> dict[str, Any]:
    def change(x: Change) -> dict[str, Any]:
        return {
            "scenario": x.name,
            "before": x.before,
            "after": x.after,
            "gained": x.gained,
            "lost": x.lost,
        }

    return {
        "old": {"report": c.old.source, "gateway": c.old.gateway},
        "new": {"report": c.new.source, "gateway": c.new.gateway},
        "regressed": c.regressed,
        "broke": [change(x) for x in c.broke],
        "fixed": [change(x) for x in c.fixed],
        "changed": [change(x) for x in c.changed],
        "moved": [change(x) for x in c.other],
        "new_scenarios": c.added,
        "gone_scenarios": c.removed,
        "unchanged": c.same,
    }
