"""A029 delta-usage-missing: message_delta has no usage.output_tokens."""

from sseconform.rules.anthropic.invariants import USAGE
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "A029",
    "delta-usage-missing",
    Severity.ERROR,
    USAGE,
    "message_delta has no usage.output_tokens.",
    RuleDoc(
        what=(
            "A `message_delta` without a `usage` object, or whose usage has no "
            "`output_tokens`. Newer Claude Code releases read the final usage here "
            "(LiteLLM #24176)."
        ),
        why=(
            "The SDKs copy message_delta's cumulative usage into the message: the "
            "output token count comes only from here."
        ),
        clients=(
            "No usage: anthropic-python fails (AttributeError), @anthropic-ai/sdk fails "
            "(\"Cannot read properties of undefined (reading 'output_tokens')\"), "
            "@ai-sdk/anthropic fails (type validation). Usage without output_tokens: "
            "@ai-sdk/anthropic fails. Claude Code reads the answer."
        ),
        fix=(
            "event: message_delta\n"
            'data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_'
            'sequence":null},"usage":{"output_tokens":3}}\n'
            "\n"
        ),
    ),
)
