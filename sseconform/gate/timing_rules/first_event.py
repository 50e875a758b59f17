"""timing:first-event: the stream's first event was held back until content arrived."""

from __future__ import annotations

from sseconform.findings import Finding
from sseconform.gate.timing import Budgets, Timing, timed
from sseconform.gate.timing_rules.base import TimingRule
from sseconform.providers import opens_before_content
from sseconform.rules.catalog import Severity
from sseconform.rules.docs import RuleDoc


def _check(tm: Timing, b: Budgets) -> Finding | None:
    added = tm.added_first_event_s
    if added is None or added <= b.first_event:
        return None
    if not opens_before_content(tm.grammar):  # its first event is its first content
        return None
    return timed(
        "first-event",
        f"the stream's first event reached the client {added:.3f} s after the upstream's "
        f"(budget {b.first_event:g} s): held back until content",
        tm.first_event_at,
    )


RULE = TimingRule(
    "first-event",
    Severity.ERROR,
    "first-event",
    "The stream's first event reached the client later than the upstream's, by more than "
    "the budget: held back until content.",
    RuleDoc(
        what=(
            "Compares when the client got the stream's first event (the role chunk, "
            "`message_start`, `response.created`) with when the upstream sent its own. "
            "Over the `first-event` budget (0.5 s by default) it is a finding. Not on the "
            "gemini endpoint: a Gemini stream has no event before its first content."
        ),
        why=(
            "An upstream sends its first event at once, then thinks. A gateway that only "
            "builds its first event from the first delta leaves the client with nothing "
            "through the whole thinking phase: no progress to show, and every first-byte "
            "timeout running."
        ),
        clients=(
            "No client misreads the late event; clients with a stream idle timeout (Codex "
            "CLI's `stream_idle_timeout_ms`, Claude Code's `CLAUDE_STREAM_IDLE_TIMEOUT_MS`) "
            "and proxies in front of the client (60 s by default in nginx and AWS ALB) cut a "
            "long thinking phase that starts in silence (documented settings, not measured "
            "here)."
        ),
        example=(
            "upstream  0.37 s  message_start\n"
            "upstream  6.50 s  content_block_delta (thinking)\n"
            'gateway   6.52 s  data: {"choices":[{"delta":{"role":"assistant",...\n'
            "          first event added 6.15 s (budget 0.5 s)\n"
        ),
        fix=(
            "Send the first event (the role chunk, `message_start`, `response.created`) as "
            "soon as the upstream's arrives, before any content."
        ),
    ),
    _check,
)
