"""S064 event-type-missing: Event data without a string `type`."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S064",
    "event-type-missing",
    Severity.ERROR,
    "no-foreign-shapes",
    "Event data without a string `type`.",
    RuleDoc(
        what="A JSON object without a string `type` (and not a chat chunk, S062).",
        why="Every Responses event says its type in the data; clients dispatch on it.",
        clients=(
            "openai-python: yields an untyped event the stream helper ignores; its content is lost."
        ),
        fix=(
            'data: {"type":"response.output_text.delta","delta":"Hi",...,"sequence_number":2}\n\n'
        ),
    ),
)
