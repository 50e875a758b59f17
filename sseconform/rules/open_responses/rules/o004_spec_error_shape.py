"""O004 spec-error-shape: The error event is not the specification's shape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.open_responses.hooks import EVENT
from sseconform.rules.open_responses.spec import report_violations

if TYPE_CHECKING:
    from sseconform.rules.open_responses.checker import OpenResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "O004",
    "spec-error-shape",
    Severity.ERROR,
    "spec-errors",
    "The error event is not the specification's shape.",
    RuleDoc(
        what=(
            "An `error` event whose payload is not nested under `error` with `type`, `code`, "
            "`message` and `param` (code and param may be null). OpenAI's flat error event "
            "(`code`, `message`, `param` at the top) fails here."
        ),
        why=(
            "A client of the specification reads the error's message and type from `error`; "
            "from OpenAI's flat shape it finds neither and shows a generic failure."
        ),
        clients=(
            "Not a client's rule: the specification's. openai-python's event type is OpenAI's "
            "flat shape; both shapes end its stream."
        ),
        fix=(
            "data: "
            '{"type":"error","sequence_number":7,"error":{"type":"server_error",'
            '"code":"server_error","message":"upstream '
            'failed","param":null}}\n\n'
        ),
        spec=(
            "Open Responses, § Errors (Error Types) and its `error` streaming event: `{type: "
            '"error", sequence_number, error: {type, code, message, param}}`.'
        ),
    ),
)


@EVENT.on(RULE)
def check(c: OpenResponsesChecker, ev: Event, obj: dict[str, Any], kind: str) -> None:
    """The error event against the specification's nested shape."""
    if kind == "error":
        report_violations(c, RULE, ev, obj, kind)
