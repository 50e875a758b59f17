"""V015 chunk-after-error: A chunk after an error chunk."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import AFTER_END
from sseconform.rules.gemini.invariants import ERROR_SHAPE

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V015",
    "chunk-after-error",
    Severity.WARNING,
    ERROR_SHAPE,
    "A chunk after an error chunk.",
    RuleDoc(
        what="The stream went on after a chunk with `error`, which ends it.",
        why="Clients stop at the error: whatever follows is lost.",
        clients="google-genai raises at the error chunk; Gemini CLI stops the turn there.",
        fix="End the stream after the error chunk.",
    ),
)


@AFTER_END.on(RULE)
def check(c: GeminiChecker, ev: Event) -> None:
    """A chunk after an error chunk."""
    c.report(RULE, "a chunk after the error chunk that ended the stream", ev)
