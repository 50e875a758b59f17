"""G012 reasoning-nonstandard: Reasoning under `reasoning`/`reasoning_details`."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "G012",
    "reasoning-nonstandard",
    Severity.INFO,
    None,
    "Reasoning under `reasoning`/`reasoning_details`.",
    RuleDoc(
        what=(
            "A delta carries reasoning under `reasoning` or `reasoning_details`; reported once "
            "per key."
        ),
        why=(
            "Informational: the key a gateway uses for reasoning decides which clients show it, "
            "and one gateway should use one key."
        ),
        clients=(
            "Measured for `reasoning` as for `reasoning_content`: dropped by `@ai-sdk/openai` and "
            "langchain ChatOpenAI, read by `@ai-sdk/openai-compatible`. `reasoning_details` was "
            "not measured."
        ),
        fix=('data: {...,"delta":{"reasoning_content":"The user wants..."}}\n\n'),
    ),
)
