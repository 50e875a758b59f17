"""F007 finish-reason-not-tool-calls: Calls made, not `tool_calls`."""

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "F007",
    "finish-reason-not-tool-calls",
    Severity.ERROR,
    FINAL_EMPTY_DELTA,
    "Calls made, not `tool_calls`.",
    RuleDoc(
        what="Tool calls were made in the choice but its finish_reason is `stop`.",
        why=(
            'Clients use `finish_reason == "tool_calls"` to decide whether to run the calls. '
            "Gemini reports STOP even when it called functions, so a literal mapping gets this "
            "wrong."
        ),
        clients=(
            "Beyond the matrix: Agent loops that check the finish reason before "
            "running tools skip the calls and end the turn; clients that look at the accumulated "
            "calls instead are unaffected."
        ),
        fix=(
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"id":"call_1",...,"function":{"name":"f","argu'
            'ments":"{}"}}]}}\n'
            "\n"
            'data: {...,"delta":{},"finish_reason":"tool_calls"}\n'
            "\n"
        ),
    ),
)
