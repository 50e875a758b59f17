"""V011 candidate-index-changed: A candidate's index is not the first candidate's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import CANDIDATE_INDEX
from sseconform.rules.gemini.invariants import ONE_CANDIDATE
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V011",
    "candidate-index-changed",
    Severity.ERROR,
    ONE_CANDIDATE,
    "A candidate's index is not the first candidate's.",
    RuleDoc(
        what=(
            "A chunk's candidate has another `index` than the stream's first: a gateway "
            "numbered its pieces, or sent several candidates when one was asked for."
        ),
        why=(
            "Clients read `candidates[0]`; pieces under another index are read as the same "
            "answer, or lost."
        ),
        clients=(
            "google-genai and Gemini CLI read no index: the pieces are joined as one answer, "
            "so two candidates would be mixed together."
        ),
        fix=("Keep `index` 0 (one candidate) throughout:\n" + gemini_chunk('{"text":"."}', "STOP")),
    ),
)


@CANDIDATE_INDEX.on(RULE)
def check(c: GeminiChecker, ev: Event, index: int, first: int, pointer: str) -> None:
    """A candidate's index is not the first candidate's."""
    if c.first_time(RULE.code):
        c.report(RULE, f"candidate index {index}, the first was {first}", ev, pointer)
