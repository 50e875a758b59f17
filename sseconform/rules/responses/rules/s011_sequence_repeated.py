"""S011 sequence-repeated: `sequence_number` repeats or goes back."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S011",
    "sequence-repeated",
    Severity.WARNING,
    "sequence-numbers",
    "`sequence_number` repeats or goes back.",
    RuleDoc(
        what="An event's `sequence_number` is equal to or below the previous event's.",
        why=(
            "A repeated number is a replayed event (or two streams interleaved); with "
            "`starting_after`, a client resuming at a cursor skips every event numbered at or "
            "below it."
        ),
        clients=(
            "openai-python: `responses.stream(..., starting_after=N)` drops events whose "
            "number is not above N, so events numbered backwards are lost on resume; without a "
            "cursor the numbers are not read."
        ),
        fix='data: {...,"sequence_number":1}\n\ndata: {...,"sequence_number":2}\n\n',
    ),
)
