"""V005 part-after-finish: Content after the chunk that gave the candidate's finishReason."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import PART_AFTER_FINISH
from sseconform.rules.gemini.invariants import FINISH_LAST
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V005",
    "part-after-finish",
    Severity.WARNING,
    FINISH_LAST,
    "Content after the chunk that gave the candidate's finishReason.",
    RuleDoc(
        what=(
            "A chunk with no `finishReason` of its own carries content parts after the chunk "
            "that finished the candidate: the finish came before the last part (a gateway "
            "that sends the upstream's stop reason as soon as it sees it, and the last text "
            "or call after). Vertex AI's older models repeat the same `finishReason` on "
            "every chunk; that is not this."
        ),
        why=(
            "A client that stops reading at the finish loses what follows; one that goes on "
            "has a finished answer that grows."
        ),
        clients=(
            "google-genai and Gemini CLI read on: the text after the finish is added to the "
            "answer (Gemini CLI shows it after its turn-finished event). A client that ends "
            "the turn at the finish loses it."
        ),
        fix=(
            "Give the finishReason with the last part, or in a chunk after it:\n"
            + gemini_chunk('{"text":"last words"}', "STOP")
        ),
    ),
)


@PART_AFTER_FINISH.on(RULE)
def check(c: GeminiChecker, ev: Event, reason: str, finished: Event, pointer: str) -> None:
    """Content after the chunk that gave the candidate's finishReason."""
    if c.first_time(RULE.code):
        c.report(
            RULE,
            f"content after finishReason {reason!r} (given at frame {finished.frame})",
            ev,
            pointer,
        )
