"""S034 part-done-mismatch: `content_part.done` differs from the part's text."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

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
