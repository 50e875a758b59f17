"""I001 index-missing: A tool-call delta has no `index`."""

from sseconform.rules.catalog import STABLE_INDEX, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "I001",
    "index-missing",
    Severity.ERROR,
    STABLE_INDEX,
    "A tool-call delta has no `index`.",
    RuleDoc(
        what="A `tool_calls` entry has no `index` (Mistral-style whole calls).",
        why=(
            "Clients key tool-call deltas off `index`, not `id` (invariant 2); without it they "
            "cannot tell which call a delta belongs to."
        ),
        clients=(
            "Measured with whole arguments and no `index`: ERR in the openai-python `.stream()` "
            "accumulator and in `@ai-sdk/openai`."
        ),
        fix=(
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"n'
            'ame":"get_weather","arguments":"{}"}}]}}\n'
            "\n"
        ),
    ),
)
