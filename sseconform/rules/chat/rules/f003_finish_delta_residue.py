"""F003 finish-delta-residue: The finish delta has empty values."""

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "F003",
    "finish-delta-residue",
    Severity.WARNING,
    FINAL_EMPTY_DELTA,
    "The finish delta has empty values.",
    RuleDoc(
        what=(
            "The finish chunk's delta is not `{}` but holds only empty values: `role`, `content` "
            '"" or null, `tool_calls` [], `refusal` null and the like.'
        ),
        why=(
            "Harmless to the measured clients but not the grammar (`delta: {}`); it shows a "
            "gateway that fills every delta from one template."
        ),
        clients="Clients that append every delta append nothing.",
        fix=('data: {...,"delta":{},"finish_reason":"stop"}\n\n'),
    ),
)
