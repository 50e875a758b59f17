"""T001 head-missing-id: A call's first delta has no `id`."""

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
    "T001",
    "head-missing-id",
    Severity.ERROR,
    TOOL_CALL_HEAD,
    "A call's first delta has no `id`.",
    RuleDoc(
        what=(
            "The first delta of a tool call (one choice index, one tool-call index) has no `id`, "
            "or a null or empty one."
        ),
        why=(
            "The client sends the id back with the tool result (`tool_call_id`); invariant 1 says "
            "the first delta carries `id`, `type` and `function.name`."
        ),
        clients=(
            "ERR in ai 5. ai 7 silently invents its own id (WRONG: the next request carries a "
            "tool_call_id the upstream never issued). The same holds when the id arrives in a "
            "later delta."
        ),
        fix=(CALL_HEAD),
    ),
)


@CALL_ADDED.on(RULE)
def check(c: StreamChecker, ev: Event, head: CallHead) -> None:
    """A call's first delta without its id."""
    if head.tid is None:
        c.report(RULE, f"the first delta of call {head.idx} has no id", ev, head.where)
