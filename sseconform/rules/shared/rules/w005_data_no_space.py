"""W005 data-no-space: A `data:` field has no space after the colon."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import anomaly
from sseconform.sse import events as kinds

RULE = define(
    "W005",
    "data-no-space",
    Severity.WARNING,
    None,
    "A `data:` field has no space after the colon.",
    RuleDoc(
        what=(
            'A `data:` line whose value does not start with a space, e.g. `data:{"a":1}`; '
            "reported once per stream. A bare `data:` with nothing after it does not count (see "
            "W015)."
        ),
        why=(
            "Legal SSE, but OpenAI always writes `data: ` with one space, and code written "
            "against its output looks for exactly that prefix."
        ),
        clients=(
            "Beyond the matrix: hand-written consumers that test "
            'startsWith("data: ") skip every such event (hey-api #3054; openai-python #498).'
        ),
        example=('data:{...,"delta":{"content":"Hi"}}\n\ndata:[DONE]\n\n'),
        fix=('data: {...,"delta":{"content":"Hi"}}\n\ndata: [DONE]\n\n'),
    ),
)

#: The decoder finds it; the checker base places it at the start of its event.
anomaly(RULE, kinds.DATA_NO_SPACE, "`data:` without a space after the colon (first here)")
