"""R003 model-changed-after-delta: The `model` changes after the first delta."""

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
    "R003",
    "model-changed-after-delta",
    Severity.WARNING,
    None,
    "The `model` changes after the first delta.",
    RuleDoc(
        what=(
            "The `model` changes after the first content, reasoning or tool delta (before it, the "
            "same change is G003)."
        ),
        why=(
            "Evidence of a mid-stream failover to another model: the answer is now written by two "
            "models, which is not allowed once a delta was sent (LiteLLM MidStreamFallbackError, "
            "#27967, #31067)."
        ),
        clients=(
            "Beyond the matrix: Clients append the deltas of both models into one "
            "answer and report one of the two models."
        ),
        fix=(
            chunk('"delta":{"content":"The answer"}', head='...,"model":"claude-x"')
            + ERROR_THEN_DONE
        ),
    ),
)


@HEAD_CHANGED.on(RULE)
def check(c: StreamChecker, ev: Event, field: str, new: Any, first: Any, previous: Any) -> None:
    """The model changes after content began: another upstream answers."""
    if field == "model" and c.any_content:
        c.report(RULE, changed("model", new, first, previous), ev, "/model")
