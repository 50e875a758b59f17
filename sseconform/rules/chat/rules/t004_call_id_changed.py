"""T004 call-id-changed: A later delta of a call carries another `id`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import TOOL_CALL_HEAD, Severity, define
from sseconform.rules.chat.hooks import CALL_CHANGED
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Call
    from sseconform.sse.decoder import Event

RULE = define(
    "T004",
    "call-id-changed",
    Severity.ERROR,
    TOOL_CALL_HEAD,
    "A later delta of a call carries another `id`.",
    RuleDoc(
        what="A later delta of a call carries an `id` different from the call's id.",
        why=(
            "Later deltas omit the id or repeat it exactly, never change it; a different id means "
            "two calls were merged under one index, or ids are generated per fragment."
        ),
        clients=(
            "Beyond the matrix: Clients key calls off `index`, so the new id "
            "does not start a new call: the `.stream()` accumulator concatenates ids (measured "
            "with a repeated id: `call_1call_1...`), giving an id the upstream never issued; "
            "which id other clients keep depends on the client."
        ),
        fix=(
            "Omit the id after the first delta:\n"
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}\n'
            "\n"
        ),
    ),
)


@CALL_CHANGED.on(RULE)
def check(c: StreamChecker, ev: Event, where: str, call: Call, field: str, value: str) -> None:
    """A call's id changes on a later delta."""
    if field == "id":
        c.report(RULE, f"call {call.index}'s id changes {call.id!r} -> {value!r}", ev, where)
