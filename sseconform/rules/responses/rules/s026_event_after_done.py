"""S026 event-after-done: An event for an item already done."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S026",
    "event-after-done",
    Severity.ERROR,
    "refs-resolve",
    "An event for an item already done.",
    RuleDoc(
        what=(
            "A delta, part, `.done` or hosted-tool event for an output item after its "
            "`response.output_item.done` (or a text delta for a part after its "
            "`content_part.done`)."
        ),
        why=(
            "`output_item.done` is the item's final state: what comes after it is not part of it."
        ),
        clients=(
            "openai-python: appends the late delta to the streamed text (the measured stream "
            "showed 'Hello, world! again') while the final response keeps the done item: what "
            "was shown and what was stored differ."
        ),
        fix="Send every event of an item before its `response.output_item.done`.",
    ),
)
