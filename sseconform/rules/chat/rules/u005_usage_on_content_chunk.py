"""U005 usage-on-content-chunk: Usage set on a chunk that has choices."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import USAGE_WITH_CHOICES
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "U005",
    "usage-on-content-chunk",
    Severity.WARNING,
    None,
    "Usage set on a chunk that has choices.",
    RuleDoc(
        what="Non-null `usage` on a chunk whose `choices` list is not empty.",
        why=(
            "Only the usage chunk (`choices: []`) carries usage; earlier chunks carry `usage: "
            "null` or none. Usage on a content chunk is usually a running count copied from the "
            "upstream."
        ),
        clients=(
            "Beyond the matrix: A client that takes usage from the first chunk that "
            "has it reports a partial count."
        ),
        fix=(
            'data: {...,"choices":[{"index":0,"delta":{"content":"Hi"}}],"usage":null}\n'
            "\n"
            "...\n"
            'data: {...,"choices":[],"usage":{"completion_tokens":12,...}}\n'
            "\n"
        ),
    ),
)


@USAGE_WITH_CHOICES.on(RULE)
def check(c: StreamChecker, ev: Event) -> None:
    """Usage on a chunk that has choices, not on its own chunk."""
    c.report(RULE, "usage on a chunk that has choices", ev, "/usage")
