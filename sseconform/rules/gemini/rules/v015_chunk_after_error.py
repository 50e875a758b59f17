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
    Severity.ERROR,
    ERROR_SHAPE,
    "A chunk after an error chunk.",
    RuleDoc(
        what="The stream went on after a chunk with `error`, which ends it.",
        why=(
            "The error says the answer failed, and what follows it makes the failure look "
            "like an answer to a client that does not stop there."
        ),
        clients=(
            "google-genai raises at the error chunk: what follows is never read. Gemini CLI "
            '(its SDK reads a `data: {"error": ...}` event as an empty chunk) goes on: it '
            "shows the chunks after the error as the answer, and never the error."
        ),
        fix="End the stream after the error chunk.",
    ),
)


@AFTER_END.on(RULE)
def check(c: GeminiChecker, ev: Event) -> None:
    """A chunk after an error chunk."""
    c.report(RULE, "a chunk after the error chunk that ended the stream", ev)
