"""G008 role-invalid: `role` is not `assistant`."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "G008",
    "role-invalid",
    Severity.ERROR,
    None,
    "`role` is not `assistant`.",
    RuleDoc(
        what="`role` is present and is not `assistant` (a null role is allowed and ignored).",
        why=(
            "A streamed chat completion is always the assistant's turn; another value (Gemini's "
            "`model`, `tool`, `system`) is a translation bug, and a client that appends the "
            "message to the conversation sends that role back in its next request."
        ),
        clients=(
            "Beyond the matrix: Clients that validate the role against OpenAI's types "
            "reject the chunk; others keep the wrong role in the conversation."
        ),
        fix=('data: {...,"delta":{"role":"assistant","content":""}}\n\n'),
    ),
)
