"""S031 arguments-done-mismatch: Streamed arguments' `.done` differs from the deltas."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

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
