"""S045 terminal-usage-inconsistent: The terminal usage does not add up."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S045",
    "terminal-usage-inconsistent",
    Severity.WARNING,
    "one-terminal-event",
    "The terminal usage does not add up.",
    RuleDoc(
        what=(
            "In the terminal event's `response.usage`: `total_tokens` is not `input_tokens + "
            "output_tokens`, `output_tokens_details.reasoning_tokens` exceeds `output_tokens`, or "
            "`input_tokens_details.cached_tokens` exceeds `input_tokens`."
        ),
        why=(
            "Billing, budgets and context accounting read these numbers; OpenAI counts reasoning "
            "within output and cached within input."
        ),
        clients=(
            "openai-python: passes the numbers through unchecked; every consumer of usage "
            "reads the wrong total."
        ),
        fix=(
            "data: "
            '{"type":"response.completed","response":{"usage":{"input_tokens":12,"output_tokens":9,'
            '"total_tokens":21},...}}\n\n'
        ),
    ),
)
