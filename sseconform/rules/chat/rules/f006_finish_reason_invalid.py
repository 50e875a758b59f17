"""F006 finish-reason-invalid: A finish_reason outside the set."""

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "F006",
    "finish-reason-invalid",
    Severity.ERROR,
    FINAL_EMPTY_DELTA,
    "A finish_reason outside the set.",
    RuleDoc(
        what=(
            "finish_reason is a string outside {stop, length, tool_calls, content_filter, "
            "function_call} and not a known native value (those are N003)."
        ),
        why=(
            "Clients branch on the finish reason: run tools, warn about truncation, show a filter "
            "notice. An unknown value takes none of those branches. A made-up value such as "
            "`error` must not stand in for an error frame."
        ),
        clients=(
            "Beyond the matrix: Clients that validate the value reject the chunk; the "
            "others hand it to application code that matches none of its cases."
        ),
        fix=(
            "For an upstream failure, send an error frame, then [DONE]:\n"
            'data: {"error":{"message":"upstream failed","type":"server_error"}}\n'
            "\n"
            "data: [DONE]\n"
            "\n"
        ),
    ),
)
