"""T004 call-id-changed: A later delta of a call carries another `id`."""

from sseconform.rules.catalog import TOOL_CALL_HEAD, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "T004",
    "call-id-changed",
    Severity.ERROR,
    TOOL_CALL_HEAD,
    "A later delta of a call carries another `id`.",
    RuleDoc(
        what="A later delta of a call carries an `id` different from the call's id.",
        why=(
            "Later deltas omit the id or repeat it exactly, never change it; a different id means "
            "two calls were merged under one index, or ids are generated per fragment."
        ),
        clients=(
            "Beyond the matrix: Clients key calls off `index`, so the new id "
            "does not start a new call: the `.stream()` accumulator concatenates ids (measured "
            "with a repeated id: `call_1call_1...`), giving an id the upstream never issued; "
            "which id other clients keep depends on the client."
        ),
        fix=(
            "Omit the id after the first delta:\n"
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}\n'
            "\n"
        ),
    ),
)
