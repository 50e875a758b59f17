"""timing:keepalives-dropped: the client got no byte while the upstream kept pinging."""

from __future__ import annotations

from sseconform.findings import Finding
from sseconform.gate.timing import Budgets, Timing, timed
from sseconform.gate.timing_rules.base import TimingRule
from sseconform.providers import takes_keepalive
from sseconform.rules.catalog import Severity
from sseconform.rules.docs import RuleDoc


def _check(tm: Timing, b: Budgets) -> Finding | None:
    silence = tm.longest_silence_s
    if silence is None or silence <= b.silence or not tm.keepalives_in_silence:
        return None
    if not takes_keepalive(tm.grammar):  # nothing the gateway could have sent
        return None
    return timed(
        "keepalives-dropped",
        f"the client got no byte for {silence:.3f} s (from {tm.silence_from_s or 0:.3f} s) "
        f"while the upstream sent {tm.keepalives_in_silence} keepalive(s): the gateway "
        "forwarded none and sent none of its own, so an idle timeout can cut the stream",
        tm.silence_end_at,
    )


RULE = TimingRule(
    "keepalives-dropped",
    Severity.ERROR,
    "silence",
    "The client got no byte for longer than the budget while the upstream sent keepalives.",
    RuleDoc(
        what=(
            "Finds the longest time the client got no byte while the upstream was alive; "
            "over the `silence` budget (5 s by default), when the upstream sent keepalives "
            "in that time (Anthropic's `event: ping`, SSE comments) and the gateway "
            "forwarded none and sent none of its own, it is a finding. Not on the gemini "
            "endpoint: its clients take no keepalive (an SSE comment breaks them)."
        ),
        why=(
            "Providers ping so that a long thinking phase survives the idle timeouts "
            "between them and the client. A gateway that drops the pings makes the "
            "client's connection silent for as long as the model thinks."
        ),
        clients=(
            "Idle timeouts cut the silent stream: nginx's proxy_read_timeout and AWS ALB's "
            "idle timeout at 60 s, Cloudflare at 100 s by default, and the clients' own "
            "(Codex CLI's `stream_idle_timeout_ms`, Claude Code's "
            "`CLAUDE_STREAM_IDLE_TIMEOUT_MS`; documented settings, not measured here). The "
            "client then sees a cut stream."
        ),
        example=(
            "upstream  0.49 s ... 6.49 s  event: ping (six)\n"
            "gateway   0.00 s ... 6.52 s  nothing after the response headers\n"
        ),
        fix=(
            "Pass the upstream's keepalives on (as SSE comments where the client's grammar "
            "has no ping event), or send your own whenever the stream has been idle a few "
            "seconds."
        ),
    ),
    _check,
)
