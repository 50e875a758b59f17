"""N003 native-finish-reason: A native finish reason leaked."""

from sseconform.rules.catalog import NO_NATIVE_LEAK, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "N003",
    "native-finish-reason",
    Severity.ERROR,
    NO_NATIVE_LEAK,
    "A native finish reason leaked.",
    RuleDoc(
        what=(
            "finish_reason is a native value: Anthropic's (end_turn, stop_sequence, max_tokens, "
            "tool_use, pause_turn, refusal), Gemini's (STOP, MAX_TOKENS, SAFETY, RECITATION, ...) "
            "or the Responses API's (completed, incomplete, max_output_tokens)."
        ),
        why=(
            "Clients compare finish_reason with OpenAI's values and a native one matches none: "
            "after `tool_use` they do not run the calls, after `max_tokens` they miss the "
            "truncation."
        ),
        clients=(
            "Beyond the matrix: Clients that validate the value reject the chunk; the "
            "others hand an unknown reason to application code."
        ),
        fix=(
            "Map it: end_turn, stop_sequence, STOP -> stop; max_tokens, MAX_TOKENS -> length; "
            "tool_use -> tool_calls; refusal, SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, "
            "SPII -> content_filter:\n"
            'data: {...,"delta":{},"finish_reason":"tool_calls"}\n'
            "\n"
        ),
    ),
)
