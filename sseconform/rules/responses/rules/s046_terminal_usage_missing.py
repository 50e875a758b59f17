"""S046 terminal-usage-missing: A completed or incomplete response without usage."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S046",
    "terminal-usage-missing",
    Severity.WARNING,
    "one-terminal-event",
    "A completed or incomplete response without usage.",
    RuleDoc(
        what=(
            "`response.completed` or `response.incomplete` whose `response.usage` is null or "
            "absent."
        ),
        why=(
            "OpenAI reports usage in the terminal event; clients and gateways meter tokens from it."
        ),
        clients="openai-python: returns `usage` None; token accounting in the caller gets nothing.",
        fix=(
            "data: "
            '{"type":"response.completed","response":{"usage":{"input_tokens":12,"output_tokens":9,'
            '"total_tokens":21},...}}\n\n'
        ),
    ),
)
