"""S033 call-arguments-too-large: Arguments over `max_arguments` are not parsed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import ARGUMENTS_TOO_LARGE

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S033",
    "call-arguments-too-large",
    Severity.WARNING,
    "done-matches-deltas",
    "Arguments over `max_arguments` are not parsed.",
    RuleDoc(
        what=(
            "A call's final arguments are longer than the `max_arguments` setting (64 MiB unless "
            "set), so they are not parsed as JSON."
        ),
        why=(
            "The check bounds its memory; arguments this large are themselves unusual and worth a "
            "look."
        ),
        clients="None measured: this is a limit of the check, not a client failure.",
        fix="Raise `max_arguments` if such calls are expected, or keep tool arguments small.",
    ),
)


@ARGUMENTS_TOO_LARGE.on(RULE)
def check(c: ResponsesChecker, ev: Event, text: str, field: str) -> None:
    """Arguments over max_arguments: not parsed."""
    c.report(
        RULE,
        f"arguments of {len(text)} chars, over max_arguments "
        f"({c.settings.max_arguments}): not parsed",
        ev,
        "/" + field,
    )
