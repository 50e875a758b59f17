"""V021 comment-in-gemini: A comment line (`: ...`) in a Gemini stream."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import COMMENT_LINE
from sseconform.rules.gemini.invariants import NO_FOREIGN_SHAPES
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V021",
    "comment-in-gemini",
    Severity.ERROR,
    NO_FOREIGN_SHAPES,
    "A comment line (`: ...`) in a Gemini stream.",
    RuleDoc(
        what=(
            "A comment line, i.e. a line starting with `:`, such as `: keepalive` or `: ping`, "
            "in a Gemini stream, which Google never sends: usually a gateway's keep-alive, sent "
            "as it is in OpenAI's or Anthropic's streams. Reported once, at the chunk after the "
            "comment (the last chunk when none follows); each comment is also W006."
        ),
        why=(
            "Gemini's SDKs do not skip comments as the SSE spec says: google-genai reads a line "
            "that is not `data: ` as raw JSON, and Gemini CLI's SDK reads each event with a "
            "pattern anchored at `data: `, so a comment stops it reading."
        ),
        clients=(
            "google-genai reads the chunks before the comment, then raises at it: every chunk "
            "after it is lost. Gemini CLI's SDK (@google/genai) reads the chunks before the "
            "comment and none after it, then throws `Incomplete JSON segment at the end` when "
            "the body ends (a comment after the last chunk too)."
        ),
        fix=(
            "Send no keep-alive in a Gemini stream (Google sends none: its clients wait for "
            "the next chunk), only the chunks:\n" + gemini_chunk('{"text":"Hi"}')
        ),
    ),
)


@COMMENT_LINE.on(RULE)
def check(c: GeminiChecker, ev: Event, text: str, line: int, offset: int) -> None:
    """A comment line in a Gemini stream."""
    if c.first_time(RULE.code):
        said = f": {text}" if text else ":"
        c.report(
            RULE,
            f"a comment line {said[:40]!r} in a Gemini stream (line {line}, byte {offset})",
            ev,
        )
