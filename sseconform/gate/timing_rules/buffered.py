"""timing:buffered: some content reached the client much later than the upstream sent it."""

from __future__ import annotations

from sseconform.findings import Finding
from sseconform.gate.timing import Budgets, Timing, timed
from sseconform.gate.timing_rules.base import TimingRule
from sseconform.rules.catalog import Severity
from sseconform.rules.docs import RuleDoc


def _check(tm: Timing, b: Budgets) -> Finding | None:
    worst = tm.added_delay_max_s
    if tm.not_streamed or worst is None or worst <= b.delay:
        return None
    return timed(
        "buffered",
        f"{tm.max_delay_field} reached the client up to {worst:.3f} s after the upstream "
        f"sent it (p50 {tm.added_delay_p50_s or 0:.3f} s, p99 {tm.added_delay_p99_s or 0:.3f} "
        f"s; budget {b.delay:g} s)",
        tm.max_delay_at,
    )


RULE = TimingRule(
    "buffered",
    Severity.ERROR,
    "delay",
    "Some content reached the client later than the upstream sent it, by more than the budget.",
    RuleDoc(
        what=(
            "For each piece the upstream sent (text, reasoning, each call's arguments), "
            "finds its last character in the gateway's stream and compares the two times; "
            "the worst of them over the `delay` budget (1 s by default) is a finding. The "
            "JSON report's timing gives p50, p99 and max."
        ),
        why=(
            "Content held and then released in a burst: tool-call arguments that look "
            "frozen, then arrive at once; a chunk that waits for the next one. An agent "
            "that starts work on a call as its arguments stream waits instead."
        ),
        clients=(
            "Clients read the late pieces correctly; the user, or an agent that acts as "
            "arguments arrive, waits for them."
        ),
        example=(
            'upstream  1.10 s  input_json_delta \'{"city": "Par\'\n'
            'gateway   3.21 s  data: {..."arguments":"{\\"city\\": \\"Par"...}\n'
            "          added 2.11 s (budget 1 s)\n"
        ),
        fix=(
            "Forward each delta when it arrives; a parser that needs a whole element "
            "before emitting it (a JSON array split at a separator) should emit each "
            "element as soon as it is complete."
        ),
    ),
    _check,
)
