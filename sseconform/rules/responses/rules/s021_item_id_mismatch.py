"""S021 item-id-mismatch: `item_id` is not the id of the item at `output_index`."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S021",
    "item-id-mismatch",
    Severity.WARNING,
    "refs-resolve",
    "`item_id` is not the id of the item at `output_index`.",
    RuleDoc(
        what=(
            "An event's `item_id` differs from the `id` of the item added at its `output_index`."
        ),
        why=(
            "Events carry both references; clients key their state by one or the other, so they "
            "disagree about which item a delta belongs to."
        ),
        clients=(
            "openai-python: keys by `output_index` and is not affected. Clients keyed by "
            "`item_id` (the AI SDK keys text and reasoning parts by it, from its source; not "
            "measured here) attach the delta to no part or to another one."
        ),
        fix="Repeat the added item's `id` as `item_id` in every event about it.",
    ),
)
