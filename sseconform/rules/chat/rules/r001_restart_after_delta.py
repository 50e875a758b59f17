"""R001 restart-after-delta: A new role-only start after the first delta."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import ROLE_RESTART
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Choice
    from sseconform.sse.decoder import Event

RULE = define(
    "R001",
    "restart-after-delta",
    Severity.ERROR,
    None,
    "A new role-only start after the first delta.",
    RuleDoc(
        what=(
            "After a choice's first content, reasoning or tool delta, a delta arrives that "
            'carries `role` and nothing else (content "" or null at most): a second stream start.'
        ),
        why=(
            "After the first delta no retry or failover is allowed: the client has already shown "
            "part of an answer. A second role chunk is the trace of a gateway that retried "
            "mid-stream and spliced the new attempt on (LiteLLM MidStreamFallbackError, #27967, "
            "#31067)."
        ),
        clients=(
            "Beyond the matrix: Clients append every delta, so the user sees the "
            "partial first attempt followed by the whole second one (a duplicated prefix)."
        ),
        fix=(
            "Once a delta was sent, report the failure instead of retrying:\n"
            'data: {...,"delta":{"content":"The answer"}}\n'
            "\n"
            'data: {"error":{"message":"upstream failed","type":"server_error"}}\n'
            "\n"
            "data: [DONE]\n"
            "\n"
        ),
    ),
)


@ROLE_RESTART.on(RULE)
def check(c: StreamChecker, ev: Event, pos: int, choice: Choice) -> None:
    """A role-only delta after the choice's content began: a second upstream starting over."""
    c.report(
        RULE,
        f"a new role-only start for choice {choice.index} after its first delta",
        ev,
        f"/choices/{pos}/delta",
    )
