"""G006 role-missing: A choice's first delta does not carry `role`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import FIRST_DELTA
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Choice
    from sseconform.sse.decoder import Event

RULE = define(
    "G006",
    "role-missing",
    Severity.WARNING,
    None,
    "A choice's first delta does not carry `role`.",
    RuleDoc(
        what=(
            "The first delta seen for a choice has no `role` key. A first delta that is the "
            "finish chunk's `delta: {}` does not count, nor does a chunk with `choices: []`."
        ),
        why=(
            'OpenAI opens each choice with `delta: {"role":"assistant","content":""}`; clients '
            "that build a message from deltas take the role from there."
        ),
        clients=(
            "Beyond the matrix: Clients that assume `assistant` are unaffected; a "
            "client that copies the role from the deltas can end up with a message without a role."
        ),
        fix=(
            'data: {...,"delta":{"role":"assistant","content":""}}\n'
            "\n"
            'data: {...,"delta":{"content":"Hi"}}\n'
            "\n"
        ),
    ),
)


@FIRST_DELTA.on(RULE)
def check(c: StreamChecker, ev: Event, choice: Choice, delta: dict[str, Any], fin: bool) -> None:
    """A choice's first delta without its role (a finish chunk may open and end it)."""
    if "role" not in delta and not fin:
        c.report(RULE, f"the first delta of choice {choice.index} has no role", ev)
