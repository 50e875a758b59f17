"""F004 finish-repeated: A choice gets a second finish_reason."""

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "F004",
    "finish-repeated",
    Severity.ERROR,
    FINAL_EMPTY_DELTA,
    "A choice gets a second finish_reason.",
    RuleDoc(
        what="A choice gets a second non-null finish_reason.",
        why=(
            "One finish chunk per choice. OpenRouter sends finish_reason twice; when the two "
            "values differ, which one a client acts on is up to the client."
        ),
        clients=(
            "Beyond the matrix: Which finish reason a client reports is then "
            "client-specific; if the two differ (say `stop`, then `tool_calls`), some clients may "
            "run the tools and others not."
        ),
        fix=('data: {...,"delta":{},"finish_reason":"stop"}\n\ndata: [DONE]\n\n'),
    ),
)
