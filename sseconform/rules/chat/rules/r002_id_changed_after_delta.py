"""R002 id-changed-after-delta: The chunk `id` changes after the first delta."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import HEAD_CHANGED
from sseconform.rules.chat.state import changed
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import ERROR_THEN_DONE, chunk

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "R002",
    "id-changed-after-delta",
    Severity.WARNING,
    None,
    "The chunk `id` changes after the first delta.",
    RuleDoc(
        what=(
            "The chunk `id` changes after the first content, reasoning or tool delta (before it, "
            "the same change is G002)."
        ),
        why=(
            "Evidence of a mid-stream retry or failover: a second response is spliced onto the "
            "first, which is not allowed once a delta was sent (LiteLLM MidStreamFallbackError, "
            "#27967, #31067)."
        ),
        clients=(
            "Beyond the matrix: Clients append the deltas of both responses into one "
            "answer (a duplicated or mixed prefix) and report one of the two ids."
        ),
        fix=(chunk('"delta":{"content":"The answer"}', head='"id":"c1",...') + ERROR_THEN_DONE),
    ),
)


@HEAD_CHANGED.on(RULE)
def check(c: StreamChecker, ev: Event, field: str, new: Any, first: Any, previous: Any) -> None:
    """The chunk id changes after content began: another upstream answers."""
    if field == "id" and c.any_content:
        c.report(RULE, changed("id", new, first, previous), ev, "/id")
