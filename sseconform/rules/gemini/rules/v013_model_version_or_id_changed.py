"""V013 model-version-or-id-changed: modelVersion or responseId changed mid-stream."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import ID_CHANGED
from sseconform.rules.gemini.invariants import STABLE_IDS

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V013",
    "model-version-or-id-changed",
    Severity.WARNING,
    STABLE_IDS,
    "modelVersion or responseId changed mid-stream.",
    RuleDoc(
        what=(
            "A chunk's `modelVersion` or `responseId` is not the first chunk's: a gateway "
            "retried or fell back to another model mid-answer and stitched the two streams "
            "together."
        ),
        why=(
            "The client attributes the whole answer to one model and one response; two "
            "answers stitched together read as one."
        ),
        clients="google-genai and Gemini CLI keep the last value they saw.",
        fix="One response per stream: the same modelVersion and responseId in every chunk.",
    ),
)


@ID_CHANGED.on(RULE)
def check(c: GeminiChecker, ev: Event, key: str, value: str, before: str) -> None:
    """modelVersion or responseId changed mid-stream."""
    if c.first_time(f"{RULE.code}:{key}"):
        c.report(RULE, f"{key} is {value!r}; the first chunk said {before!r}", ev, f"/{key}")
