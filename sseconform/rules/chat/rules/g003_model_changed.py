"""G003 model-changed: A chunk's `model` differs from the first chunk's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import HEAD_CHANGED
from sseconform.rules.chat.state import changed
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "G003",
    "model-changed",
    Severity.WARNING,
    None,
    "A chunk's `model` differs from the first chunk's.",
    RuleDoc(
        what=(
            "A chunk's `model` differs from the first chunk's before any content, reasoning or "
            "tool delta was sent (after that, the same change is R003)."
        ),
        why=(
            "`model` tells the client what answered, and the stream should name one model. A "
            "change before the first delta shows a failover after the first chunk was already "
            "sent."
        ),
        clients=(
            "Beyond the matrix: Clients take the model from one chunk, not "
            "necessarily the last, so they may report a model that did not answer."
        ),
        fix=(
            "Pick the upstream before sending the first chunk, then name one model throughout:\n"
            'data: {...,"model":"gpt-y","delta":{"role":"assistant","content":""}}\n'
            "\n"
            'data: {...,"model":"gpt-y","delta":{"content":"Hi"}}\n'
            "\n"
        ),
    ),
)


@HEAD_CHANGED.on(RULE)
def check(c: StreamChecker, ev: Event, field: str, new: Any, first: Any, previous: Any) -> None:
    """The model changes before any content (after it: R003)."""
    if field == "model" and not c.any_content:
        c.report(RULE, changed("model", new, first, previous), ev, "/model")
