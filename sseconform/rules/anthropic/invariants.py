"""The anthropic grammar's invariants, declared before its rules name them."""

from sseconform.rules.catalog import invariants

MESSAGE_START_FIRST = "message-start-first"
BLOCK_ORDER = "block-order"
DELTA_MATCHES_BLOCK = "delta-matches-block"
TOOL_INPUT_JSON = "tool-input-json"
STOP_THEN_MESSAGE_STOP = "stop-then-message-stop"
EVENT_NAME_MATCHES_TYPE = "event-name-matches-type"
ERROR_EVENT = "error-event"
USAGE = "usage"
NO_FOREIGN_SHAPES = "no-foreign-shapes"

#: In report order: how a message opens, its blocks, how it ends, then naming, errors, usage.
INVARIANTS: tuple[str, ...] = invariants(
    "anthropic",
    (
        MESSAGE_START_FIRST,
        BLOCK_ORDER,
        DELTA_MATCHES_BLOCK,
        TOOL_INPUT_JSON,
        STOP_THEN_MESSAGE_STOP,
        EVENT_NAME_MATCHES_TYPE,
        ERROR_EVENT,
        USAGE,
        NO_FOREIGN_SHAPES,
    ),
)
