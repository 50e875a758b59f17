"""timing:silence: the client got no byte for longer than the budget, while the upstream
was quiet that long too (a warning)."""

from __future__ import annotations

from sseconform.findings import Finding
from sseconform.gate.timing import Budgets, Timing, timed
from sseconform.gate.timing_rules.base import TimingRule
from sseconform.providers import takes_keepalive
from sseconform.rules.catalog import Severity
from sseconform.rules.docs import RuleDoc


def _check(tm: Timing, b: Budgets) -> Finding | None:
    silence = tm.longest_silence_s
    if silence is None or silence <= b.silence or tm.keepalives_in_silence:
        return None
    if not takes_keepalive(tm.grammar):  # the client's grammar has no keepalive to send
        return None
    if tm.upstream_quiet_s <= b.silence:
        return None
    return timed(
        "silence",
        f"the client got no byte for {silence:.3f} s (from {tm.silence_from_s or 0:.3f} s), "
        f"the upstream itself quiet for {tm.upstream_quiet_s:.3f} s of it; a gateway can keep "
        "its clients' connections alive through an upstream's silence",
        tm.silence_end_at,
        Severity.WARNING,
    )


RULE = TimingRule(
    "silence",
    Severity.WARNING,
    "silence",
    "The client got no byte for longer than the budget while the upstream was quiet too: "
    "the gateway could keep the connection alive.",
    RuleDoc(
        what=(
            "Finds the longest time the client got no byte while the upstream was alive; "
            "over the `silence` budget, when the upstream itself was silent that long (no "
            "keepalive: Gemini and OpenAI send none while they think), it is a warning. Not "
            "on the gemini endpoint, whose clients take no keepalive."
        ),
        why=(
            "Nothing was dropped, but the same idle timeouts cut the stream. A gateway can "
            "send keepalives of its own (SSE comments, or `event: ping` on /v1/messages) "
            "to carry its clients through an upstream's silence."
        ),
        clients=(
            "As for timing:keepalives-dropped: a 60 s proxy idle timeout cuts a silence "
            "that long (documented defaults, not measured here)."
        ),
        example=(
            "upstream  0.72 s ... 6.80 s  nothing (Gemini thinking)\n"
            "gateway   0.72 s ... 6.81 s  nothing\n"
        ),
        fix=": keepalive\n\n(an SSE comment every few seconds of silence; clients ignore it)",
    ),
    _check,
)
