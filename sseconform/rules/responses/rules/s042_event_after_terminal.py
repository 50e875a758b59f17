"""S042 event-after-terminal: An event after the terminal event."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S042",
    "event-after-terminal",
    Severity.WARNING,
    "one-terminal-event",
    "An event after the terminal event.",
    RuleDoc(
        what=(
            "An event follows `response.completed`, `response.incomplete` or `response.failed` "
            "(reported once)."
        ),
        why="The terminal event ends the response; clients may stop reading at it.",
        clients=(
            "openai-python: keeps reading to the end of the body (the measured case read "
            "right). A client that stops at the terminal event loses what follows."
        ),
        fix="End the body after the terminal event.",
    ),
)
