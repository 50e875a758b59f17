"""W010 retry-field: A `retry:` field in an LLM stream."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import anomaly
from sseconform.sse import events as kinds

RULE = define(
    "W010",
    "retry-field",
    Severity.WARNING,
    None,
    "A `retry:` field in an LLM stream.",
    RuleDoc(
        what="A `retry:` line inside a block that also carries data.",
        why=(
            "`retry:` tells an EventSource how long to wait before reconnecting; a chat "
            "completion is a POST that cannot be resumed, so the field has no use and only adds "
            "parser state."
        ),
        clients=(
            "Beyond the matrix: A spec-following parser stores the delay and "
            "dispatches the event normally. In a block of its own the same line breaks "
            "openai-python and httpx-sse (see W009)."
        ),
        example=('retry: 3000\ndata: {...,"delta":{"content":"Hi"}}\n\n'),
        fix=('Drop the field:\ndata: {...,"delta":{"content":"Hi"}}\n\n'),
    ),
)

#: The decoder finds it; the checker base places it at the start of its event.
anomaly(
    RULE,
    kinds.RETRY_FIELD,
    "a `retry: {}` field, which no LLM API sends",
    anthropic="`retry: {}` on a Messages stream",
)
