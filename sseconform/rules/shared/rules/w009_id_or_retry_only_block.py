"""W009 id-or-retry-only-block: A block of only `id:`/`retry:` lines, no data."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import anomaly
from sseconform.sse import events as kinds

RULE = define(
    "W009",
    "id-or-retry-only-block",
    Severity.ERROR,
    None,
    "A block of only `id:`/`retry:` lines, no data.",
    RuleDoc(
        what=(
            "A block (the lines up to a blank line) that holds `id:` and/or `retry:` lines and no "
            "data line; W008 and W010 are then not reported for those lines."
        ),
        why=(
            "A spec parser dispatches nothing for such a block, but widely used Python parsers "
            "dispatch an empty event, which then fails to parse."
        ),
        clients=(
            "openai-python and httpx-sse dispatch an empty event and the JSON parse raises "
            "JSONDecodeError (openai-python #2722, #3833; httpx-sse #35)."
        ),
        example=('retry: 3000\n\ndata: {...,"delta":{"content":"Hi"}}\n\n'),
        fix=(
            "Send no `id:` or `retry:` lines on chat streams:\n"
            'data: {...,"delta":{"content":"Hi"}}\n'
            "\n"
        ),
    ),
)

#: The decoder finds it; the checker base places it at the start of its event.
anomaly(
    RULE, kinds.ID_OR_RETRY_ONLY, "a block of only {} lines: some clients dispatch an empty event"
)
