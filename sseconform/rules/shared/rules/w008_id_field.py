"""W008 id-field: An `id:` field in an LLM stream."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import anomaly
from sseconform.sse import events as kinds

RULE = define(
    "W008",
    "id-field",
    Severity.WARNING,
    None,
    "An `id:` field in an LLM stream.",
    RuleDoc(
        what="An `id:` line inside a block that also carries data.",
        why=(
            "A chat completion stream cannot be resumed, so an event id has no use; it only sets "
            "state in the client's parser, and popular parsers misbehave once it is set."
        ),
        clients=(
            "Beyond the matrix: after an `id:` was seen, openai-python and "
            "httpx-sse dispatch an empty event at a later blank line, and parsing it as JSON "
            "raises JSONDecodeError (openai-python #2722, #3833; httpx-sse #35)."
        ),
        example=('id: 1\ndata: {...,"delta":{"content":"Hi"}}\n\n'),
        fix=('Drop the field:\ndata: {...,"delta":{"content":"Hi"}}\n\n'),
    ),
)

#: The decoder finds it; the checker base places it at the start of its event.
anomaly(
    RULE,
    kinds.ID_FIELD,
    "an `id: {}` field, which no LLM API sends",
    anthropic="`id: {}` on a Messages stream",
)
