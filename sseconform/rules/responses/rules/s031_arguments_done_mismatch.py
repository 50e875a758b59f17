"""S031 arguments-done-mismatch: Streamed arguments' `.done` differs from the deltas."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import BODY_DONE
from sseconform.rules.responses.state import done_unlike_deltas

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.rules.responses.state import Acc
    from sseconform.sse.decoder import Event

RULE = define(
    "S031",
    "arguments-done-mismatch",
    Severity.ERROR,
    "done-matches-deltas",
    "Streamed arguments' `.done` differs from the deltas.",
    RuleDoc(
        what=(
            "`response.function_call_arguments.done` (`arguments`) is not the concatenation of the "
            "call's argument deltas; the same for `custom_tool_call_input`, `mcp_call_arguments`, "
            "`code_interpreter_call_code` and `apply_patch_call_operation_diff`."
        ),
        why=(
            "Clients show or pre-parse the arguments as they stream and execute the final ones: "
            "the tool runs with arguments other than the ones shown."
        ),
        clients=(
            "openai-python: the stream's argument snapshot is built from the deltas while "
            "`get_final_response()` returns the `.done`/completed arguments (the measured case "
            'executed \'{"city": "Pari"}\' after streaming \'{"city": "Paris"}\').'
        ),
        fix=(
            'data: {"type":"response.function_call_arguments.done","arguments":"{\\"city\\": '
            '\\"Paris\\"}",...}\n\n'
        ),
    ),
)


@BODY_DONE.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str, field: str, text: str, acc: Acc) -> None:
    """A call's arguments (or a tool's input) at `.done` that are not what the deltas built."""
    said = done_unlike_deltas(kind, field, text, acc)
    if said is not None:
        c.report(RULE, said, ev, "/" + field)
