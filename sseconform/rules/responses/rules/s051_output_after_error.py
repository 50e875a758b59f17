"""S051 output-after-error: Output events after an `error` event."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S051",
    "output-after-error",
    Severity.WARNING,
    "error-event",
    "Output events after an `error` event.",
    RuleDoc(
        what=(
            "After an `error` event, events other than a terminal one (`response.failed`) or "
            "another error follow (reported once)."
        ),
        why=(
            "An error ends the response's output; OpenAI sends `response.failed` after it and "
            "nothing else."
        ),
        clients=(
            "openai-python: raises APIError at the (nested) error event, so nothing after it "
            "is read."
        ),
        fix='data: {"type":"error","error":{...}}\n\ndata: {"type":"response.failed",...}\n\n',
    ),
)
