"""G004 created-changed: A chunk's `created` differs from the first chunk's."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "G004",
    "created-changed",
    Severity.WARNING,
    None,
    "A chunk's `created` differs from the first chunk's.",
    RuleDoc(
        what="A chunk's `created` differs from the first chunk's.",
        why=(
            "`created` is the response's creation time, one value for the whole stream. A gateway "
            "that stamps each chunk with the current time, or splices two upstream calls, changes "
            "it."
        ),
        clients=(
            "No client is known to depend on it; it is a "
            "warning because it reveals per-chunk stamping or a spliced stream."
        ),
        fix=(
            "Take `created` once, when the stream starts:\n"
            'data: {...,"created":1714000000,"delta":{"content":"Hi"}}\n'
            "\n"
            'data: {...,"created":1714000000,"delta":{"content":" there"}}\n'
            "\n"
        ),
    ),
)
