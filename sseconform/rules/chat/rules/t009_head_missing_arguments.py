"""T009 head-missing-arguments: A first delta has no `arguments` (or `null`)."""

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
    "T009",
    "head-missing-arguments",
    Severity.WARNING,
    TOOL_CALL_HEAD,
    "A first delta has no `arguments`.",
    RuleDoc(
        what=(
            "The first delta of a call has no `function.arguments` key at all, or has `null` there."
        ),
        why=(
            'OpenAI sends `"arguments": ""` in the first delta; code that appends fragments to '
            "the value it finds there fails when the key is missing."
        ),
        clients="TypeError in the function-calling guide snippet.",
        fix=(CALL_HEAD),
    ),
)


@CALL_ADDED.on(RULE)
def check(c: StreamChecker, ev: Event, head: CallHead) -> None:
    """A call's first delta without `function.arguments`, or with ``null`` there (the same
    break: the guide's snippet appends to what it finds)."""
    if "arguments" not in head.fn:
        c.report(RULE, f"the first delta of call {head.idx} has no arguments", ev, head.where)
    elif head.fn["arguments"] is None:
        c.report(RULE, f"the first delta of call {head.idx} has arguments null", ev, head.where)
