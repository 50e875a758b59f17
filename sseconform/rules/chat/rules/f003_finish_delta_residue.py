"""F003 finish-delta-residue: The finish delta has empty values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.chat.hooks import FINISH
from sseconform.rules.chat.state import has_payload, short
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Choice
    from sseconform.sse.decoder import Event

RULE = define(
    "F003",
    "finish-delta-residue",
    Severity.WARNING,
    FINAL_EMPTY_DELTA,
    "The finish delta has empty values.",
    RuleDoc(
        what=(
            "The finish chunk's delta is not `{}` but holds only empty values: `role`, `content` "
            '"" or null, `tool_calls` [], `refusal` null and the like.'
        ),
        why=(
            "Harmless to the measured clients but not the grammar (`delta: {}`); it shows a "
            "gateway that fills every delta from one template."
        ),
        clients="Clients that append every delta append nothing.",
        fix=('data: {...,"delta":{},"finish_reason":"stop"}\n\n'),
    ),
)


@FINISH.on(RULE)
def check(c: StreamChecker, ev: Event, pos: int, choice: Choice, delta: Any, fr: Any) -> None:
    """A finish chunk whose delta is not `{}` but carries no content either."""
    if type(delta) is dict and delta and not has_payload(delta):
        c.report(RULE, f"the finish delta is {short(delta)}, not {{}}", ev, f"/choices/{pos}/delta")
