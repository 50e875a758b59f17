"""S036 done-event-repeated: A `.done` sent twice."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S036",
    "done-event-repeated",
    Severity.WARNING,
    "done-matches-deltas",
    "A `.done` sent twice.",
    RuleDoc(
        what="A second text, arguments, part or item `.done` for the same part or item.",
        why="Each part and item ends once; a second end is usually a replayed event.",
        clients=(
            "openai-python: reads past it (the measured case read right). Clients that emit an "
            "end-of-part event on it emit two."
        ),
        fix="Send each `.done` once.",
    ),
)
