"""U001 usage-before-finish: The usage chunk comes before a finish chunk."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import USAGE_CHUNK
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "U001",
    "usage-before-finish",
    Severity.WARNING,
    None,
    "The usage chunk comes before a finish chunk.",
    RuleDoc(
        what="A usage chunk arrives while some choice that had deltas has no finish_reason yet.",
        why=(
            "The usage chunk comes after the finish chunk, just before `[DONE]`. Sent earlier, it "
            "shows a gateway forwarding usage as soon as the upstream reports it (Anthropic sends "
            "cumulative usage in `message_delta`)."
        ),
        clients=(
            "Beyond the matrix: A client that takes the usage chunk as the end of the "
            "answer misses the finish chunk. Separately, the function-calling guide snippet "
            "raises IndexError on a `choices: []` usage chunk it did not ask for."
        ),
        fix=(
            'data: {...,"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n'
            "\n"
            'data: {...,"choices":[],"usage":{...}}\n'
            "\n"
            "data: [DONE]\n"
            "\n"
        ),
    ),
)


@USAGE_CHUNK.on(RULE)
def check(c: StreamChecker, ev: Event) -> None:
    """The usage chunk before every choice finished."""
    open_choices = [ch.index for ch in c.choices.values() if ch.finish is None]
    if open_choices:
        c.report(RULE, f"usage chunk before the finish chunk of choice {open_choices}", ev)
