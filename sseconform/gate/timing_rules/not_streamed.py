"""timing:not-streamed: the answer came in one burst while the upstream streamed it."""

from __future__ import annotations

from sseconform.findings import Finding
from sseconform.gate.timing import BURST_SHARE, SPREAD_MIN, Budgets, Timing, timed
from sseconform.gate.timing_rules.base import TimingRule
from sseconform.rules.catalog import Severity
from sseconform.rules.docs import RuleDoc


def _check(tm: Timing, b: Budgets) -> Finding | None:
    if not tm.not_streamed:
        return None
    return timed(
        "not-streamed",
        f"the upstream spread its content over {tm.upstream_spread_s or 0:.3f} s; the "
        f"gateway sent it all within {tm.gateway_spread_s or 0:.3f} s, "
        f"{tm.added_delay_max_s or 0:.3f} s late at worst: the answer was buffered, not "
        "streamed",
        tm.first_token_at,
    )


RULE = TimingRule(
    "not-streamed",
    Severity.ERROR,
    None,
    "The upstream spread its content over time; the gateway sent all of it in one burst.",
    RuleDoc(
        what=(
            f"With three pieces of content or more spread over {SPREAD_MIN:g} s or more by "
            f"the upstream, a gateway that delivered them all within {BURST_SHARE:.0%} of "
            "that time did not stream them. It needs no budget: the pattern is the finding "
            "(and it replaces timing:buffered for the same stream)."
        ),
        why=(
            "A client that asked for a stream waits for the whole answer: the first token "
            "comes last. Gateways do it when a plugin, a guardrail or a response logger "
            "needs the full text, or when a proxy in front buffers responses."
        ),
        clients=(
            "Every client reads the burst correctly; the user sees nothing, then "
            "everything. Behind a proxy with a 60 s idle timeout a long answer is cut "
            "before the burst."
        ),
        example=(
            "upstream  0.36 s ... 4.36 s   14 writes, text spread over 4.0 s\n"
            "gateway   4.37 s              every chunk within 2 ms\n"
        ),
        fix=(
            "Pass each delta on as it arrives (flush after each event), and turn off "
            "response buffering for text/event-stream in any proxy in front."
        ),
    ),
    _check,
)
