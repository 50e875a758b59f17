"""F008 tool-calls-without-calls: `tool_calls` but no call made."""

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "F008",
    "tool-calls-without-calls",
    Severity.ERROR,
    FINAL_EMPTY_DELTA,
    "`tool_calls` but no call made.",
    RuleDoc(
        what="finish_reason is `tool_calls` but no call was made in the choice.",
        why=(
            "Clients then look for calls to run and find none; a loop that expects tool results "
            "before its next request can stall or send an empty turn."
        ),
        clients=(
            "Beyond the matrix: Agent loops that branch on the finish reason take the "
            "tool path with nothing to run."
        ),
        fix=(
            'data: {...,"delta":{"content":"Done."}}\n'
            "\n"
            'data: {...,"delta":{},"finish_reason":"stop"}\n'
            "\n"
        ),
    ),
)
