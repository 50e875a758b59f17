"""S012 sequence-missing: An event without `sequence_number`."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S012",
    "sequence-missing",
    Severity.WARNING,
    "sequence-numbers",
    "An event without `sequence_number`.",
    RuleDoc(
        what="An event has no `sequence_number` (reported once per stream).",
        why=(
            "OpenAI numbers every event; the numbers order events and let a client resume "
            "(`starting_after`)."
        ),
        clients=(
            "openai-python: reads the stream unchanged without numbers; resuming with "
            "`starting_after` compares against a missing number and fails."
        ),
        fix=(
            'data: {"type":"response.output_text.delta","delta":"Hi",...,"sequence_number":4}\n\n'
        ),
    ),
)
