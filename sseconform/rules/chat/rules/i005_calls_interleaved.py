"""I005 calls-interleaved: Fragments of parallel calls interleave."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import STABLE_INDEX, Severity, define
from sseconform.rules.chat.hooks import CALL_INTERLEAVED
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "I005",
    "calls-interleaved",
    Severity.WARNING,
    STABLE_INDEX,
    "Fragments of parallel calls interleave.",
    RuleDoc(
        what=(
            "After a delta for call k, a delta arrives for an earlier call j < k that already had "
            "deltas before k started (indexes 0, 1, 0); reported once per choice."
        ),
        why=(
            "Legal, since each call keeps its index, but some clients assume calls arrive one "
            "after another."
        ),
        clients=(
            "ERR in the strict openai-python `.stream()` accumulator, which treats an index "
            "switch as 'previous call done'; no other measured client broke on it."
        ),
        fix=(
            "Finish each call before starting the next (buffer per call if the upstream "
            "interleaves):\n"
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"id":"call_1",...,"function":{"name":"f","argu'
            'ments":""}}]}}\n'
            "\n"
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}\n'
            "\n"
            "data: "
            '{...,"delta":{"tool_calls":[{"index":1,"id":"call_2",...,"function":{"name":"f","argu'
            'ments":""}}]}}\n'
            "\n"
        ),
    ),
)


@CALL_INTERLEAVED.on(RULE)
def check(c: StreamChecker, ev: Event, where: str, idx: int, last: int) -> None:
    """An earlier call continues after another started (said once per choice)."""
    c.report(RULE, f"call {idx} continues after call {last} started", ev, f"{where}/index")
