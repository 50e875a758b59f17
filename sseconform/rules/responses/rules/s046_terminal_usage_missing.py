"""S046 terminal-usage-missing: A completed or incomplete response without usage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import TERMINAL
from sseconform.rules.snippets import USAGE_COMPLETED

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S046",
    "terminal-usage-missing",
    Severity.WARNING,
    "one-terminal-event",
    "A completed or incomplete response without usage.",
    RuleDoc(
        what=(
            "`response.completed` or `response.incomplete` whose `response.usage` is null or "
            "absent."
        ),
        why=(
            "OpenAI reports usage in the terminal event; clients and gateways meter tokens from it."
        ),
        clients=(
            "openai-python: returns `usage` None; token accounting in the caller gets nothing. "
            "OpenCode's AI SDK reads the terminal event as no finish, and its loop asks again."
        ),
        fix=USAGE_COMPLETED,
    ),
)


@TERMINAL.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str, response: dict[str, Any]) -> None:
    """A completed or incomplete response without usage (a failed one may have none)."""
    if kind != "response.failed" and response.get("usage") is None:
        c.report(RULE, f"{kind} without usage", ev, "/response/usage")
