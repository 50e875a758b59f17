"""O011 error-without-failed: An error event is not followed by `response.failed`."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "O011",
    "error-without-failed",
    Severity.WARNING,
    "spec-errors",
    "An error event is not followed by `response.failed`.",
    RuleDoc(
        what=(
            "An `error` event, then the end of the stream or a terminal event other than "
            "`response.failed`."
        ),
        why=(
            "A client of the specification waits for `response.failed` to learn the response's "
            "final state; without it, only the connection's end tells it the response is over."
        ),
        clients=(
            "Not a client's rule: the specification's. openai-python raises at the error event "
            "itself."
        ),
        example='data: {"type":"error","sequence_number":7,"error":{...}}\n\n(end of stream)',
        fix=(
            'data: {"type":"error","sequence_number":7,"error":{...}}\n\ndata: '
            '{"type":"response.failed","sequence_number":8,"response":{...}}\n\ndata: '
            "[DONE]\n\n"
        ),
        spec=(
            "Open Responses, § Errors: an error incurred while streaming will be followed by a "
            "`response.failed` event (descriptive, not a MUST: a warning)."
        ),
    ),
)
