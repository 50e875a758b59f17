"""S060 done-sentinel-after-terminal: `data: [DONE]` after the terminal event."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S060",
    "done-sentinel-after-terminal",
    Severity.WARNING,
    "no-foreign-shapes",
    "`data: [DONE]` after the terminal event.",
    RuleDoc(
        what="A `data: [DONE]` line in a Responses stream, after its terminal event.",
        why=(
            "`[DONE]` ends chat-completions streams; the Responses API ends with its terminal "
            "event and sends no `[DONE]`. It usually means a gateway wrote its chat framing around "
            "Responses events."
        ),
        clients=(
            "openai-python: stops at `[DONE]` without harm when it comes last (the measured "
            "case read right). Clients that parse every data line as JSON fail on it."
        ),
        fix='data: {"type":"response.completed",...}\n\n',
    ),
)
