"""S044 terminal-status-mismatch: The terminal event's status contradicts it."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S044",
    "terminal-status-mismatch",
    Severity.ERROR,
    "one-terminal-event",
    "The terminal event's status contradicts it.",
    RuleDoc(
        what=(
            "`response.completed` whose `response.status` is not `completed` (likewise "
            "`incomplete`, `failed`)."
        ),
        why=("Callers check `response.status`; the event type and the status must say the same."),
        clients=(
            "openai-python: `get_final_response()` returns the response with the wrong status "
            "(the measured case: a completed stream whose final response says `in_progress`)."
        ),
        fix='data: {"type":"response.completed","response":{"status":"completed",...}}\n\n',
    ),
)
