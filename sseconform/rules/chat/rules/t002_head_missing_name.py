"""T002 head-missing-name: A call's first delta has no name."""

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
    "T002",
    "head-missing-name",
    Severity.ERROR,
    TOOL_CALL_HEAD,
    "A call's first delta has no name.",
    RuleDoc(
        what="The first delta of a tool call has no `function.name`, or an empty one.",
        why=(
            "Clients learn which function to run from the first delta (invariant 1); a nameless "
            "head makes the call unusable."
        ),
        clients=(
            "ERR in `@ai-sdk/openai` (ai 7 and ai 5) and in ai 5 `@ai-sdk/openai-compatible` "
            "(\"Expected 'function.name' to be a string.\"); WRONG in the function-calling guide "
            "snippet."
        ),
        fix=(CALL_HEAD),
    ),
)


@CALL_ADDED.on(RULE)
def check(c: StreamChecker, ev: Event, head: CallHead) -> None:
    """A call's first delta without its function name."""
    if head.name is None:
        c.report(RULE, f"the first delta of call {head.idx} has no function.name", ev, head.where)
