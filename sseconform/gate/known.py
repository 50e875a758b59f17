"""Known deviations in a gate run: a baseline marks the errors it accepts as known (reported,
not failing), and a run's errors make a new baseline."""

from __future__ import annotations

import dataclasses

from sseconform.baseline import Baseline, from_findings
from sseconform.gate.result import ScenarioResult, SuiteResult
from sseconform.rules.catalog import Severity

__all__ = ["apply_baseline", "apply_known", "baseline_of"]


def apply_baseline(results: list[SuiteResult], baseline: Baseline) -> None:
    """Mark the errors the baseline accepts as known, and note its entries that no longer
    happen (only for scenarios that ran: a scenario left out by ``--only`` proves nothing)."""
    for s in (s for r in results for s in r.scenarios):
        apply_known(s, baseline)


def apply_known(s: ScenarioResult, baseline: Baseline) -> None:
    """:func:`apply_baseline` for one scenario, as soon as it is done (the same result
    however often it is applied)."""
    if not s.applicable:
        return
    idx = [i for i, f in enumerate(s.findings) if f.severity == Severity.ERROR]
    known, s.fixed = baseline.match(s.name, [s.findings[i].key for i in idx])
    for i, k in zip(idx, known, strict=True):
        if k:
            s.findings[i] = dataclasses.replace(s.findings[i], known=True)


def baseline_of(results: list[SuiteResult]) -> Baseline:
    """A baseline that accepts every error of this run (for ``--write-baseline``)."""
    found = {
        s.name: [f.key for f in s.findings if f.severity == Severity.ERROR]
        for r in results
        for s in r.scenarios
        if s.applicable
    }
    return from_findings("gate", found)
