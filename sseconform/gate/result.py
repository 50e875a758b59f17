"""What a gate run found: a verdict per scenario, with its findings, per suite. Plain data, so
the report writers (text, JSON, JUnit, GitHub, HTML) stay pure functions of it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sseconform.findings import Finding
from sseconform.gate.evidence import Evidence
from sseconform.gate.timing import Timing
from sseconform.report.jsonfmt import findings
from sseconform.rules.catalog import Severity

__all__ = ["FAILING", "VERDICTS", "ScenarioResult", "SuiteResult"]

#: A scenario's verdict. ``unreached``: the upstream never saw the request (or refused it, or
#: its fault never fired), so nothing was tested; ``known``: only baseline deviations;
#: ``not-graded``: the gateway was down when its turn came (not a failure of its own).
VERDICTS = ("pass", "known", "fail", "unreached", "not-applicable", "not-graded")
FAILING = frozenset({"fail", "unreached"})


@dataclass
class ScenarioResult:
    name: str
    expect: str
    status: int | None
    recording: str  # the gateway's recorded stream ("" when nothing was sent)
    upstream_requests: int
    seconds: float
    findings: list[Finding] = field(default_factory=list)
    note: str = ""
    suite: str = ""
    dialect: str = ""  # the upstream's dialect on the wire
    endpoint: str = "chat"  # the gateway's endpoint: chat, messages, responses or gemini
    applicable: bool = True  # False: the gateway's profile says it cannot route this dialect
    graded: bool = True  # False: the gateway was down (``note`` says since which scenario)
    upstream_log: list[str] = field(default_factory=list)  # replay's log lines (redacted)
    fixed: list[str] = field(default_factory=list)  # baseline entries no longer seen
    #: what the HTML report shows (both sides' content, timelines, event bytes), when asked
    #: for (``run_suite(evidence=True)``); never in the JSON report
    evidence: Evidence | None = None
    #: the same of a conversation's later turns, in order (when asked for)
    later_evidence: list[Evidence] = field(default_factory=list)
    #: what the gateway added to the upstream's times (None: nothing to time)
    timing: Timing | None = None
    #: a conversation's later turns: the gateway's recorded answer of each, in order
    turns: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        if not self.applicable:
            return "not-applicable"
        if not self.graded:
            return "not-graded"
        new = [f for f in self.findings if f.severity == Severity.ERROR and not f.known]
        if new:
            return "unreached" if any(f.source == "upstream" for f in new) else "fail"
        return "known" if any(f.severity == Severity.ERROR for f in self.findings) else "pass"

    @property
    def passed(self) -> bool:
        """Graded and not failed (known deviations included); n/a is neither."""
        return self.verdict in ("pass", "known")

    @property
    def failed(self) -> bool:
        return self.verdict in FAILING

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "suite": self.suite,
            "dialect": self.dialect,
            "endpoint": self.endpoint,
            "verdict": self.verdict,
            "expect": self.expect,
            "passed": self.passed,
            "status": self.status,
            "recording": self.recording,
            "turn_recordings": self.turns,
            "upstream_requests": self.upstream_requests,
            "upstream_log": self.upstream_log,
            "seconds": round(self.seconds, 3),
            "note": self.note,
            "timing": (self.timing or Timing()).to_dict(),
            "findings": findings(self.findings),
            "baseline_fixed": self.fixed,
        }


@dataclass
class SuiteResult:
    suite: str
    gateway: str
    upstream: str
    scenarios: list[ScenarioResult]
    profile: str | None = None
    #: the gateway stopped listening: the scenario in flight then (None: it never went
    #: down; "" : it was never up)
    down: str | None = None

    @property
    def passed(self) -> bool:
        return self.down is None and not any(s.failed for s in self.scenarios)
