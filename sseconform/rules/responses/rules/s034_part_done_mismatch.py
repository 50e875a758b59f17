"""S034 part-done-mismatch: `content_part.done` differs from the part's text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import PART_DONE

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.rules.responses.state import Part
    from sseconform.sse.decoder import Event

RULE = define(
    "S034",
    "part-done-mismatch",
    Severity.WARNING,
    "done-matches-deltas",
    "`content_part.done` differs from the part's text.",
    RuleDoc(
        what=(
            "The `part` of `response.content_part.done` (or `reasoning_summary_part.done`) has "
            "another type, or a text that is not what its deltas (and its text `.done`) gave."
        ),
        why=(
            "The part's `.done` repeats its final state; a different text there is a second, "
            "conflicting version of the part."
        ),
        clients=(
            "openai-python: does not read `content_part.done`; the measured stream and final "
            "response were right. Clients that take a part's final text from it read the other "
            "version."
        ),
        fix=(
            "data: "
            '{"type":"response.content_part.done","part":{"type":"output_text","text":"Hello, '
            'world!",...},...}\n\n'
        ),
    ),
)


@PART_DONE.on(RULE)
def check(
    c: ResponsesChecker, ev: Event, kind: str, part: Part, got: dict[str, Any], summary: bool
) -> None:
    """A part's `.done` of another type than it was added as, or with other text."""
    if got.get("type") != part.kind and not summary:
        c.report(
            RULE, f"{kind}: part type {got.get('type')!r}, added as {part.kind!r}", ev, "/part/type"
        )
        return
    text = got.get("refusal") if got.get("type") == "refusal" else got.get("text")
    if isinstance(text, str) and not part.acc.matches(text):
        c.report(
            RULE,
            f"{kind}: the part's text ({len(text)} chars) is not what its deltas built "
            f"({part.acc.size} chars)",
            ev,
            "/part",
        )
