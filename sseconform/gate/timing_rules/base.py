"""What a timing rule is: a code, a severity, the budget it reads, its docs, its judgement."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sseconform.findings import Finding
from sseconform.gate.timing import Budgets, Timing
from sseconform.rules.catalog import Severity, define_gate
from sseconform.rules.docs import RuleDoc

__all__ = ["TimingRule"]


@dataclass(frozen=True)
class TimingRule:
    """One ``timing:CODE`` finding: ``judge`` says whether a scenario's timing breaks it."""

    code: str  # "first-token": reported as timing:first-token
    severity: Severity
    budget: str | None  # the budget it reads ("first-token"), None when it has none
    summary: str
    doc: RuleDoc
    check: Callable[[Timing, Budgets], Finding | None]

    def __post_init__(self) -> None:
        define_gate(self.key, self.severity, self.summary, self.doc)

    @property
    def key(self) -> str:
        return f"timing:{self.code}"

    def judge(self, tm: Timing, budgets: Budgets) -> Finding | None:
        return self.check(tm, budgets)
