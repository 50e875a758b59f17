"""U002 usage-choices-not-empty: The usage chunk's `choices` is not `[]`."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "U002",
    "usage-choices-not-empty",
    Severity.ERROR,
    None,
    "The usage chunk's `choices` is not `[]`.",
    RuleDoc(
        what="A frame with non-null `usage` whose `choices` is null or missing.",
        why=(
            "The usage chunk has `choices: []`; clients iterate `choices` on every chunk and a "
            "null there is not a list."
        ),
        clients=(
            "Measured with `choices: null`: ERR in the AI SDK (the finish reason flips to `error` "
            "and the usage is lost) and in the openai-python `.stream()` accumulator."
        ),
        fix=('data: {...,"choices":[],"usage":{...}}\n\n'),
    ),
)
