"""V004 finish-reason-unknown: A finishReason value Gemini does not have."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import FINISH
from sseconform.rules.gemini.invariants import FINISH_LAST
from sseconform.rules.gemini.state import FINISH_REASONS
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V004",
    "finish-reason-unknown",
    Severity.ERROR,
    FINISH_LAST,
    "A finishReason value Gemini does not have.",
    RuleDoc(
        what=(
            "A candidate's `finishReason` is none of Gemini's values (`STOP`, `MAX_TOKENS`, "
            "`SAFETY`, `RECITATION`, `MALFORMED_FUNCTION_CALL`, ...): a gateway passed "
            "another API's stop reason through (`stop`, `end_turn`, `tool_calls`, `length`)."
        ),
        why=(
            "Clients decide what happened from the value: whether the answer is whole, cut "
            "by the token limit, or blocked."
        ),
        clients=(
            "google-genai warns (`is not a valid FinishReason`) and keeps the value. Gemini "
            "CLI takes any value as the end of the turn."
        ),
        fix=(
            (
                "Map the upstream's reason to Gemini's: `end_turn`/`stop`/`tool_calls` -> "
                "`STOP`, `length`/`max_tokens` -> `MAX_TOKENS`:\n"
            )
            + gemini_chunk('{"text":"."}', "STOP")
        ),
    ),
)


@FINISH.on(RULE)
def check(c: GeminiChecker, ev: Event, reason: str, pointer: str) -> None:
    """A finishReason value Gemini does not have."""
    if reason not in FINISH_REASONS and c.first_time(f"{RULE.code}:{reason}"):
        c.report(RULE, f"finishReason {reason!r} is not one of Gemini's", ev, pointer)
