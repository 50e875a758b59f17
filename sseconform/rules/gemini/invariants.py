"""The gemini grammar's invariants, declared before its rules name them."""

from sseconform.rules.catalog import invariants

ONE_CANDIDATE = "one-candidate"
WHOLE_CALLS = "whole-calls"
FINISH_LAST = "finish-last"
THOUGHTS_MARKED = "thoughts-marked"
USAGE = "usage"
STABLE_IDS = "stable-ids"
ERROR_SHAPE = "error-shape"
NO_FOREIGN_SHAPES = "no-foreign-shapes"

#: In report order: the candidate, its calls, how it ends, its thoughts, then usage, ids,
#: errors and what other grammars left in it.
INVARIANTS: tuple[str, ...] = invariants(
    "gemini",
    (
        ONE_CANDIDATE,
        WHOLE_CALLS,
        FINISH_LAST,
        THOUGHTS_MARKED,
        USAGE,
        STABLE_IDS,
        ERROR_SHAPE,
        NO_FOREIGN_SHAPES,
    ),
)
