"""S072 call-arguments-cut: A call's arguments cut short by max_output_tokens."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import ARGUMENTS_INVALID

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S072",
    "call-arguments-cut",
    Severity.WARNING,
    "done-matches-deltas",
    "A call's arguments cut short by max_output_tokens.",
    RuleDoc(
        what=(
            "The last call's final `arguments` do not parse as JSON and the terminal event is "
            "`response.incomplete` with `incomplete_details.reason` `max_output_tokens`: the "
            "model ran out of tokens mid-call. Under any other ending it is S032."
        ),
        why=(
            "Not a gateway bug as such: the upstream cut the call. The gateway must keep "
            "`response.incomplete` and its reason, so clients know the call is incomplete and "
            "do not run it."
        ),
        clients=(
            "Clients that take the arguments as they are run a call that fails to parse unless "
            "they check the response's status first."
        ),
        fix=(
            "Keep `response.incomplete` with its reason; never complete or re-label the call. "
            "Raise max_output_tokens if calls are routinely cut."
        ),
    ),
)


@ARGUMENTS_INVALID.on(RULE)
def check(c: ResponsesChecker, ev: Event, said: str, pointer: str, cut: bool) -> None:
    """Arguments that are not JSON because max_output_tokens cut them."""
    if cut:
        c.report(RULE, f"{said}: cut by max_output_tokens", ev, pointer)
