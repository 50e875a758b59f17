"""timing:first-token: the first content reached the client late."""

from __future__ import annotations

from sseconform.findings import Finding
from sseconform.gate.timing import Budgets, Timing, timed
from sseconform.gate.timing_rules.base import TimingRule
from sseconform.rules.catalog import Severity
from sseconform.rules.docs import RuleDoc


def _check(tm: Timing, b: Budgets) -> Finding | None:
    added = tm.added_first_token_s
    if added is None or added <= b.first_token:
        return None
    return timed(
        "first-token",
        f"the first content reached the client {added:.3f} s after the upstream sent it "
        f"(budget {b.first_token:g} s)",
        tm.first_token_at,
    )


RULE = TimingRule(
    "first-token",
    Severity.ERROR,
    "first-token",
    "The first content reached the client later than the upstream sent it, by more than "
    "the budget.",
    RuleDoc(
        what=(
            "Compares when the client got the first piece of the answer (text, reasoning or "
            "a call) with when the upstream sent it, each counted from the request its side "
            "got: what a client waits through the gateway against a direct call, the time "
            "the gateway took to call the upstream included. Over the `first-token` budget "
            "(0.5 s by default) it is a finding."
        ),
        why=(
            "Time to first token is what a user of a chat or an agent feels; it is the "
            "regression gateway users report most (a first token at 272 ms direct and "
            "1740 ms through a gateway). It comes from a gateway that holds the stream, "
            "waits on a hook, a lookup or its own logging before passing the first delta "
            "on, or is slow to call the upstream."
        ),
        clients=(
            "No client fails on a late first token by itself; the user waits. Clients that "
            "time the first byte give up at their own timeouts: openai-python and "
            "anthropic-python after 600 s by default; Codex CLI (`stream_idle_timeout_ms`) "
            "and Claude Code (`CLAUDE_STREAM_IDLE_TIMEOUT_MS`) have stream idle timeouts of "
            "their own (documented settings, not measured here)."
        ),
        example=(
            'upstream  0.41 s  content_block_delta "The sky"\n'
            'gateway   1.92 s  data: {"choices":[{"delta":{"content":"The sky"}}]}\n'
            "          added 1.51 s (budget 0.5 s)\n"
        ),
        fix=(
            "Pass each upstream delta on as it arrives, and do before-stream work "
            "(authentication, routing, logging) without holding the upstream's first bytes."
        ),
    ),
    _check,
)
