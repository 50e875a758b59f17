"""T007 arguments-resent: A call's whole arguments are sent again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import TOOL_CALL_HEAD, Severity, define
from sseconform.rules.chat.hooks import ARGUMENTS_RESENT
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import ARGUMENT_FRAGMENTS

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "T007",
    "arguments-resent",
    Severity.ERROR,
    TOOL_CALL_HEAD,
    "A call's whole arguments are sent again.",
    RuleDoc(
        what=(
            "A later fragment of a call equals the whole (non-empty) arguments accumulated so "
            "far: the call is sent again whole."
        ),
        why=(
            "Arguments arrive either whole or as fragments, never both, and a call is never "
            "re-sent whole; gateways do this when they stream the fragments and then forward a "
            "native 'done' event carrying the complete arguments."
        ),
        clients=(
            "Beyond the matrix: Clients concatenate fragments, so the "
            "arguments become `{...}{...}` and no longer parse; what clients then do is ERR or "
            "WRONG everywhere (see F009)."
        ),
        fix=("Send the fragments only; drop the final complete copy:\n" + ARGUMENT_FRAGMENTS),
    ),
)


@ARGUMENTS_RESENT.on(RULE)
def check(c: StreamChecker, ev: Event, where: str, idx: int) -> None:
    """A call's whole arguments sent again after their fragments."""
    c.report(RULE, f"call {idx}'s whole arguments sent again", ev, f"{where}/function")
