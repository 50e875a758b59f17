"""G007 role-repeated: `role` repeated on a later delta that carries content."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import ROLE_REPEATED
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Choice
    from sseconform.sse.decoder import Event

RULE = define(
    "G007",
    "role-repeated",
    Severity.WARNING,
    None,
    "`role` repeated on a later delta that carries content.",
    RuleDoc(
        what=(
            "`role` appears again on a later delta of a choice, one that also carries content, "
            "reasoning or tool calls (OpenRouter does this); reported once per choice."
        ),
        why=(
            "The role belongs to the first delta only; repeated, it risks being concatenated by "
            "clients that join every string they receive. A role-only repeat is worse: it is "
            "reported as a restart (R001)."
        ),
        clients=(
            "Beyond the matrix: Clients that set the role are unaffected; by the "
            "mechanism that turns a repeated tool-call id into `call_1call_1...` in the "
            "`.stream()` accumulator, a client that concatenates strings could get "
            "`assistantassistant`."
        ),
        fix=(
            'data: {...,"delta":{"role":"assistant","content":"Hi"}}\n'
            "\n"
            'data: {...,"delta":{"content":" there"}}\n'
            "\n"
        ),
    ),
)


@ROLE_REPEATED.on(RULE)
def check(c: StreamChecker, ev: Event, pos: int, choice: Choice) -> None:
    """The role again on a later delta that carries content (said once per choice)."""
    c.report(
        RULE,
        f"role repeated on a later delta of choice {choice.index}",
        ev,
        f"/choices/{pos}/delta/role",
    )
