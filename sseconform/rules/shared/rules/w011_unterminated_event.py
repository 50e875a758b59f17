"""W011 unterminated-event: The last event is not ended by a blank line."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import anomaly
from sseconform.sse import events as kinds

RULE = define(
    "W011",
    "unterminated-event",
    Severity.ERROR,
    None,
    "The last event is not ended by a blank line.",
    RuleDoc(
        what=(
            "The body ends while a block with a data line is still open, with no blank line after "
            "it (e.g. it ends in `data: [DONE]\\n`). That event is discarded, as spec parsers do, "
            "so a body ending in an unterminated `[DONE]` also reports D001."
        ),
        why=(
            "A spec-following parser drops an event that no blank line ends, so what it carried "
            "never reaches the client: the `[DONE]`, the finish chunk or the usage chunk."
        ),
        clients=(
            "A spec-following parser discards the last event (WPT "
            "eventsource/format-data-before-final-empty-line). When that event is `[DONE]`, the "
            "measured clients still finish, since they tolerate a missing `[DONE]` (D001); "
            "when it is the finish or usage chunk, a spec-following parser silently loses the "
            "finish reason or the usage."
        ),
        example=('data: {...,"delta":{},"finish_reason":"stop"}\n\ndata: [DONE]\n'),
        fix=(
            "End every event, `[DONE]` included, with a blank line:\n"
            'data: {...,"delta":{},"finish_reason":"stop"}\n'
            "\n"
            "data: [DONE]\n"
            "\n"
        ),
    ),
)

#: The decoder finds it; the checker base places it at the start of its event.
anomaly(
    RULE, kinds.UNTERMINATED, "the last event is not ended by a blank line; parsers drop it: {!r}"
)
