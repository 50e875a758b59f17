"""F005 chunk-after-finish: A delta for a choice after its finish."""

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "F005",
    "chunk-after-finish",
    Severity.WARNING,
    FINAL_EMPTY_DELTA,
    "A delta for a choice after its finish.",
    RuleDoc(
        what=(
            "A delta for a choice (content, reasoning, tool calls, or any other non-finish chunk) "
            "arrives after that choice's finish chunk; a repeated finish is F004 instead."
        ),
        why=(
            "The finish chunk is the last chunk with choices; only the usage chunk and `[DONE]` "
            "may follow. Content after it can mean the gateway emits the finish when the upstream "
            "signals it, before flushing the deltas it still holds."
        ),
        clients=(
            "Beyond the matrix: Clients that close the message at the finish reason "
            "drop what follows; others append it after the answer was reported complete."
        ),
        fix=(
            'data: {...,"delta":{"content":" Bye."}}\n'
            "\n"
            'data: {...,"delta":{},"finish_reason":"stop"}\n'
            "\n"
        ),
    ),
)
