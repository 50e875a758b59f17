"""U003 usage-repeated: More than one chunk carries usage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import USAGE
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.usage import Tokens
    from sseconform.sse.decoder import Event

RULE = define(
    "U003",
    "usage-repeated",
    Severity.WARNING,
    None,
    "More than one chunk carries usage.",
    RuleDoc(
        what="A second frame with non-null `usage`, whether a usage chunk or not.",
        why=(
            "There is exactly one usage chunk, and only when it was asked for. With several, a "
            "client that adds them up counts twice and one that keeps the first keeps a partial "
            "count; billing built on either is off."
        ),
        clients=(
            "Beyond the matrix: Which usage a client reports depends on the client. "
            "When usage was not asked for, each `choices: []` usage chunk also raises IndexError "
            "in the function-calling guide snippet."
        ),
        fix=('data: {...,"choices":[],"usage":{"prompt_tokens":10,...}}\n\ndata: [DONE]\n\n'),
    ),
)


@USAGE.on(RULE)
def check(c: StreamChecker, ev: Event, usage: Any, tokens: Tokens | None, again: bool) -> None:
    """A second chunk with usage."""
    if again:
        c.report(RULE, "a second chunk with usage", ev, "/usage")
