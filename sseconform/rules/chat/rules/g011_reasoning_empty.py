"""G011 reasoning-empty: A `reasoning_content` delta that is an empty string."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import DELTA
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Choice
    from sseconform.sse.decoder import Event

RULE = define(
    "G011",
    "reasoning-empty",
    Severity.WARNING,
    None,
    "A `reasoning_content` delta that is an empty string.",
    RuleDoc(
        what='A delta\'s `reasoning_content` is the empty string "".',
        why=(
            "`reasoning_content` deltas carry reasoning text and are non-empty strings; an empty "
            "one carries nothing, and often means the gateway copies an empty native field onto "
            "every chunk."
        ),
        clients=(
            "Beyond the matrix: `reasoning_content` is read by "
            "`@ai-sdk/openai-compatible` and dropped by `@ai-sdk/openai` and langchain "
            "ChatOpenAI; an empty value adds nothing for any of them, and code that takes the "
            "key's presence to mean 'reasoning in progress' is misled."
        ),
        fix=(
            "Leave the key out when there is no reasoning text:\n"
            'data: {...,"delta":{"content":"Hi"}}\n'
            "\n"
        ),
    ),
)


@DELTA.on(RULE)
def check(c: StreamChecker, ev: Event, pos: int, choice: Choice, delta: dict[str, Any]) -> None:
    """An empty `reasoning_content`."""
    if delta.get("reasoning_content") == "":
        c.report(RULE, "empty `reasoning_content`", ev, f"/choices/{pos}/delta")
