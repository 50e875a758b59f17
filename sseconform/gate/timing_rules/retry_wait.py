"""timing:retry-wait: a retried upstream error waited other than its Retry-After asked."""

from __future__ import annotations

from sseconform.findings import Finding
from sseconform.gate.timing import Budgets, Timing, timed
from sseconform.gate.timing_rules.base import TimingRule
from sseconform.rules.catalog import Severity
from sseconform.rules.docs import RuleDoc

#: Below Retry-After by this much is early: the two clocks' read order, not a choice.
EARLY_SLACK = 0.05


def _check(tm: Timing, b: Budgets) -> Finding | None:
    waited, asked = tm.retry_wait_s, tm.retry_after_s
    if waited is None or asked is None:
        return None
    if waited + EARLY_SLACK < asked:
        return timed(
            "retry-wait",
            f"the gateway retried the upstream's error after {waited:.3f} s, before the "
            f"{asked:g} s its Retry-After asked for: a provider refuses that retry too",
            tm.first_token_at,
            Severity.WARNING,
        )
    if waited > asked + b.first_token:
        return timed(
            "retry-wait",
            f"the gateway waited {waited:.3f} s to retry the upstream's error, whose "
            f"Retry-After asked for {asked:g} s (budget: Retry-After + {b.first_token:g} s)",
            tm.first_token_at,
        )
    return None


RULE = TimingRule(
    "retry-wait",
    Severity.ERROR,
    "first-token",
    "A gateway that retried an upstream error waited longer than its Retry-After asked "
    "(by more than the first-token budget), or retried before it.",
    RuleDoc(
        what=(
            "When the gateway retried an upstream error (a 429, a 529) and passed the "
            "retry's answer on, its wait (from the failed answer's end to the retry) is "
            "reported as `retry_wait_s` and judged against the Retry-After the failed "
            "answer named: longer by more than the `first-token` budget is a finding, "
            "shorter is a warning. The first token is then timed from the retry, so a "
            "gateway that honours Retry-After is not charged for the wait."
        ),
        why=(
            "A clean retry is what a client would have done itself, with the wait the "
            "provider asked for; a gateway that waits far longer adds that time to every "
            "rate-limited request, and one that retries early is refused again (and may "
            "be throttled harder)."
        ),
        clients=(
            "No client fails on it: the user waits, or the retry is refused and the client "
            "gets the error late. openai-python and anthropic-python honour Retry-After "
            "themselves when they retry (their documented behaviour, not measured here)."
        ),
        example=(
            "upstream  0.00 s  HTTP 429, retry-after: 1\n"
            "upstream  4.20 s  the retried request arrives\n"
            "          waited 4.2 s for a Retry-After of 1 s (budget 1 + 0.5 s)\n"
        ),
        fix="Retry after the Retry-After the provider names, not a fixed back-off.",
    ),
    _check,
)
