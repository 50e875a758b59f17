"""I004 index-moved: A call's id reappears under another index."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import STABLE_INDEX, Severity, define
from sseconform.rules.chat.hooks import CALL_MOVED
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "I004",
    "index-moved",
    Severity.ERROR,
    STABLE_INDEX,
    "A call's id reappears under another index.",
    RuleDoc(
        what=(
            "A delta carries an `id` that already belongs to a call at another index: the call "
            "moved to a new index mid-call."
        ),
        why=(
            "Each call keeps one index across all its deltas (invariant 2); clients key off the "
            "index, so a moved call becomes two."
        ),
        clients=(
            "Measured as a tool-call `index` that changes mid-call: WRONG in all the Python "
            "clients (two calls, one nameless); ERR in ai 5 and in the `.stream()` accumulator."
        ),
        fix=(
            "Keep the index the call started with:\n"
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}\n'
            "\n"
        ),
    ),
)


@CALL_MOVED.on(RULE)
def check(c: StreamChecker, ev: Event, where: str, tid: str, old: int, idx: int) -> None:
    """A call's id under another index than the one it started at."""
    c.report(RULE, f"call {tid!r} moved from index {old} to {idx}", ev, f"{where}/index")
