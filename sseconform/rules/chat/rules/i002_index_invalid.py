"""I002 index-invalid: A tool-call `index` is not an integer >= 0."""

from sseconform.rules.catalog import STABLE_INDEX, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "I002",
    "index-invalid",
    Severity.ERROR,
    STABLE_INDEX,
    "A tool-call `index` is not an integer >= 0.",
    RuleDoc(
        what=(
            "A tool-call `index` is not an integer >= 0: a string, a float, a negative number or "
            "null."
        ),
        why=(
            'Clients key calls off `index`; `"0"` and `0` are different keys, and negative or '
            "fractional values cannot be list positions."
        ),
        clients=(
            "Beyond the matrix: Clients that validate chunks reject it; others may "
            "file the fragments under a key of their own and report an extra, nameless call."
        ),
        fix=(
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"n'
            'ame":"get_weather","arguments":""}}]}}\n'
            "\n"
        ),
    ),
)
