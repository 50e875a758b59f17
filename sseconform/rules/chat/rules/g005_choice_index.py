"""G005 choice-index: A choice index that is not the next from 0."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import CHOICE_ADDED
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "G005",
    "choice-index",
    Severity.ERROR,
    None,
    "A choice index that is not the next from 0.",
    RuleDoc(
        what=(
            "A choice index appears that is not the next one (highest so far + 1, from 0), e.g. a "
            "first chunk with `choices[0].index == 1`."
        ),
        why=(
            "`choices[].index` is the choice index (0 for n=1), never a content-block index; a "
            "gateway that copies Anthropic's block index there splits one answer into several "
            "choices (LiteLLM PR #12666)."
        ),
        clients=(
            "Beyond the matrix: Clients that key choices by index build a second "
            "choice out of part of the answer; code that reads only the first choice misses that "
            "part."
        ),
        fix=(
            'data: {...,"choices":[{"index":0,"delta":{"content":"Let me check."}}]}\n'
            "\n"
            'data: {...,"choices":[{"index":0,"delta":{"tool_calls":[...]}}]}\n'
            "\n"
        ),
    ),
)


@CHOICE_ADDED.on(RULE)
def check(c: StreamChecker, ev: Event, pos: int, idx: int, expected: int) -> None:
    """A new choice at another index than the next."""
    if idx != expected:
        c.report(RULE, f"choice index {idx}, expected {expected}", ev, f"/choices/{pos}/index")
