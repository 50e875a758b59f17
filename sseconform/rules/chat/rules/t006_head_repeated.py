"""T006 head-repeated: A later delta repeats the call's id or name."""

from sseconform.rules.catalog import TOOL_CALL_HEAD, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "T006",
    "head-repeated",
    Severity.ERROR,
    TOOL_CALL_HEAD,
    "A later delta repeats the call's id or name.",
    RuleDoc(
        what=(
            "A later delta of a call repeats the same `id` or the same `function.name`; reported "
            "once per call."
        ),
        why=(
            "Allowed by the grammar (later deltas omit id and name or repeat them exactly), but "
            "clients that concatenate every string field turn the repeats into garbage."
        ),
        clients=(
            "WRONG in the openai-python `.stream()` accumulator, which concatenates the ids "
            "(`call_1call_1...`); langchain-openai concatenates the name."
        ),
        fix=(
            "Send id and name in the first delta only:\n"
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}\n'
            "\n"
        ),
    ),
)
