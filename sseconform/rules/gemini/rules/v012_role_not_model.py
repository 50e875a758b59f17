"""V012 role-not-model: A candidate's content role is not `model`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import ROLE
from sseconform.rules.gemini.invariants import ONE_CANDIDATE
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V012",
    "role-not-model",
    Severity.WARNING,
    ONE_CANDIDATE,
    "A candidate's content role is not `model`.",
    RuleDoc(
        what=(
            "`content.role` is something else than `model` (`assistant`, another API's "
            "word): a translation left the other API's role in place."
        ),
        why=(
            "A client that puts the content back in the history as it came sends a role "
            "Gemini refuses (`Please use a valid role: user, model`)."
        ),
        clients=(
            "google-genai keeps the role as sent, and a history built from it is refused by "
            "the API. Gemini CLI stores every model turn with role `model`."
        ),
        fix=("Gemini's model turn has role `model`:\n" + gemini_chunk('{"text":"."}', "STOP")),
    ),
)


@ROLE.on(RULE)
def check(c: GeminiChecker, ev: Event, role: Any, pointer: str) -> None:
    """A candidate's content role is not `model`."""
    if c.first_time(RULE.code):
        c.report(RULE, f"content role {role!r}, not 'model'", ev, pointer)
