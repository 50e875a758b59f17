"""O011 error-without-failed: An error event is not followed by `response.failed`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.open_responses.hooks import END

if TYPE_CHECKING:
    from sseconform.rules.open_responses.checker import OpenResponsesChecker

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


@END.on(RULE)
def check(c: OpenResponsesChecker) -> None:
    """An error event, and no response.failed after it."""
    err = c.error
    if err is None or (c.terminal is not None and c.terminal_kind == "response.failed"):
        return
    term = c.terminal
    if term is None:
        then = "then nothing"
    elif term.frame < err.frame:
        then = f"it came after {c.terminal_kind}"
    else:
        then = f"then {c.terminal_kind}"
    c.report_at_end(
        RULE,
        f"the error event at frame {err.frame} is not followed by response.failed ({then})",
    )
