"""The timing rule family: one module per ``timing:CODE`` finding, its judgement beside its
docs (what, why, which clients break, example, fix), as the grammar rules keep theirs.

Each module's ``RULE`` judges a scenario's :class:`~sseconform.gate.timing.Timing` against
the budgets; :func:`judge` runs them all in order. ``sseconform rule timing:first-token``
prints one's docs, ``sseconform rules`` lists them with the others.
"""

from __future__ import annotations

from sseconform.findings import Finding
from sseconform.gate.timing import Budgets, Timing
from sseconform.gate.timing_rules.base import TimingRule
from sseconform.gate.timing_rules.buffered import RULE as BUFFERED
from sseconform.gate.timing_rules.first_event import RULE as FIRST_EVENT
from sseconform.gate.timing_rules.first_token import RULE as FIRST_TOKEN
from sseconform.gate.timing_rules.keepalives_dropped import RULE as KEEPALIVES_DROPPED
from sseconform.gate.timing_rules.not_streamed import RULE as NOT_STREAMED
from sseconform.gate.timing_rules.retry_wait import RULE as RETRY_WAIT
from sseconform.gate.timing_rules.silence import RULE as SILENCE
from sseconform.gate.timing_rules.upstream_not_streamed import RULE as UPSTREAM_NOT_STREAMED

__all__ = ["RULES", "TimingRule", "find", "judge"]

#: In the order their findings are reported.
RULES: tuple[TimingRule, ...] = (
    FIRST_TOKEN,
    RETRY_WAIT,
    FIRST_EVENT,
    UPSTREAM_NOT_STREAMED,
    NOT_STREAMED,
    BUFFERED,
    KEEPALIVES_DROPPED,
    SILENCE,
)


def judge(tm: Timing, budgets: Budgets) -> list[Finding]:
    """Every timing finding of one scenario, in :data:`RULES` order."""
    return [v for rule in RULES if (v := rule.judge(tm, budgets)) is not None]


def find(code: str) -> TimingRule | None:
    """A rule by its code, with or without ``timing:`` (``first-token``)."""
    code = code.removeprefix("timing:")
    return next((r for r in RULES if r.code == code), None)
