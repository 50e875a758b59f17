"""T003 head-missing-type: A call's first delta has no `type`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import TOOL_CALL_HEAD, Severity, define
from sseconform.rules.chat.hooks import CALL_ADDED
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import CALL_HEAD

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import CallHead
    from sseconform.sse.decoder import Event

RULE = define(
    "T003",
    "head-missing-type",
    Severity.ERROR,
    TOOL_CALL_HEAD,
    "A call's first delta has no `type`.",
    RuleDoc(
        what="The first delta of a tool call has no `type`.",
        why=(
            'OpenAI sends `type: "function"` on the first delta of every call and invariant 1 '
            "asks for it; a client that checks the type instead of assuming it cannot classify "
            "the call."
        ),
        clients=(
            "A client that assumes function calls is unaffected; one that checks `type` drops "
            "the call."
        ),
        fix=(CALL_HEAD),
    ),
)


@CALL_ADDED.on(RULE)
def check(c: StreamChecker, ev: Event, head: CallHead) -> None:
    """A call's first delta without its type."""
    if "type" not in head.tc:
        c.report(RULE, f"the first delta of call {head.idx} has no type", ev, head.where)
