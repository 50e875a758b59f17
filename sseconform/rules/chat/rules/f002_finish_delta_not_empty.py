"""F002 finish-delta-not-empty: The finish chunk's delta has content."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.chat.hooks import FINISH
from sseconform.rules.chat.state import has_payload
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Choice
    from sseconform.sse.decoder import Event

RULE = define(
    "F002",
    "finish-delta-not-empty",
    Severity.WARNING,
    FINAL_EMPTY_DELTA,
    "The finish chunk's delta has content.",
    RuleDoc(
        what=(
            "The chunk that carries a finish_reason has a delta with non-empty content, refusal, "
            "reasoning_content or tool_calls."
        ),
        why=(
            "Invariant 3: the final chunk has `delta: {}` and the finish reason. Folding the last "
            "text or fragment into it makes that content depend on clients reading the delta of a "
            "chunk they may treat as an end marker."
        ),
        clients=(
            "Beyond the matrix: Clients that read every delta still get the content; "
            "a client that treats the finish chunk as an end marker and skips its delta loses the "
            "last piece of text or the last argument fragment."
        ),
        fix=(
            'data: {...,"delta":{"content":"."}}\n'
            "\n"
            'data: {...,"delta":{},"finish_reason":"stop"}\n'
            "\n"
        ),
    ),
)


@FINISH.on(RULE)
def check(c: StreamChecker, ev: Event, pos: int, choice: Choice, delta: Any, fr: Any) -> None:
    """A finish chunk whose delta carries content."""
    if type(delta) is dict and delta and has_payload(delta):
        c.report(
            RULE,
            f"the finish chunk of choice {choice.index} carries a delta",
            ev,
            f"/choices/{pos}/delta",
        )
