"""S043 terminal-output-mismatch: The terminal output differs from the stream."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S043",
    "terminal-output-mismatch",
    Severity.ERROR,
    "one-terminal-event",
    "The terminal output differs from the stream.",
    RuleDoc(
        what=(
            "The terminal event's `response.output` has another number of items than the stream "
            "added, or an item whose id, type, text, refusal, reasoning summary or arguments are "
            "not what the stream built (text compared by hash). A `response.failed` with an empty "
            "output is not compared; "
            "a reasoning item whose id alone changed is S074 (an info); in a resumed stream "
            "(S013) the items are compared at their output_index."
        ),
        why=(
            "The final response is what clients store and what the next turn sends back; the "
            "deltas are what the user saw."
        ),
        clients=(
            "openai-python: `get_final_response()` returns the terminal output: the measured "
            "stream showed 'Hello, world!' and the final response said 'Hello, world'; with a "
            "call missing from the output, the final response had one call of two."
        ),
        fix="Put every streamed item, as done, in the terminal output.",
    ),
)
