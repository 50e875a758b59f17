"""G010 unknown-field: A field OpenAI does not send (reported once per name)."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "G010",
    "unknown-field",
    Severity.INFO,
    None,
    "A field OpenAI does not send (reported once per name).",
    RuleDoc(
        what=(
            "A key that OpenAI itself does not send, reported once per key path. Native keys "
            "(N004) and `reasoning`/`reasoning_details` (G012) have their own codes."
        ),
        why=(
            "Informational: it lists what a gateway or provider adds beyond OpenAI's grammar "
            "(provider extras, debugging fields), which can leak internal data or collide with "
            "fields OpenAI adds later."
        ),
        clients=(
            "Beyond the matrix: clients generally ignore keys they do not know, so "
            "nothing is expected to break."
        ),
        fix=(
            "Nothing to fix if the key is meant to be there; otherwise drop it or move it to an "
            "HTTP response header:\n"
            'data: {...,"choices":[...]}\n'
            "\n"
        ),
    ),
)
