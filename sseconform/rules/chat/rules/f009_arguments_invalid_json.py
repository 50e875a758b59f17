"""F009 arguments-invalid-json: A call's arguments are not JSON."""

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "F009",
    "arguments-invalid-json",
    Severity.ERROR,
    FINAL_EMPTY_DELTA,
    "A call's arguments are not JSON.",
    RuleDoc(
        what=(
            "At the end of the stream, a call's concatenated arguments do not parse as JSON. An "
            'empty string "" counts as `{}` (providers send it for calls without arguments); when '
            "the choice finished with `length`, F010 is reported instead."
        ),
        why=(
            "When finish_reason is `tool_calls`, each call's arguments must parse as JSON; a "
            "client cannot run a call whose arguments it cannot read. A lost or duplicated "
            "fragment shows up here."
        ),
        clients=(
            "ERR or WRONG in every measured client: ai 5 `@ai-sdk/openai` silently drops the "
            "call, langchain-openai silently 'repairs' the arguments, the others throw or return "
            "the broken arguments."
        ),
        fix=(
            "Forward every fragment, in order, exactly once:\n"
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]}}\n'
            "\n"
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"Paris\\"}"}}]}}\n'
            "\n"
            'data: {...,"delta":{},"finish_reason":"tool_calls"}\n'
            "\n"
        ),
    ),
)
