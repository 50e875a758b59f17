"""S041 terminal-repeated: A second terminal event."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S041",
    "terminal-repeated",
    Severity.WARNING,
    "one-terminal-event",
    "A second terminal event.",
    RuleDoc(
        what="A second `response.completed`, `response.incomplete` or `response.failed`.",
        why="One response ends once; a second end is two streams spliced or a replay.",
        clients=(
            "openai-python: keeps reading and returned the right final response in the "
            "measured case. Clients that finish on the first terminal event never see the "
            "second."
        ),
        fix="Send one terminal event, last.",
    ),
)
