"""W013 event-field: An `event:` field on chat output (clients ignore it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules import native
from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import EVENT_NAME
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "W013",
    "event-field",
    Severity.WARNING,
    None,
    "An `event:` field on chat output (clients ignore it).",
    RuleDoc(
        what=(
            "An `event:` line whose name is neither native (N001) nor `error` (W014), e.g. "
            "`event: message` or `event: chunk`; reported once per name."
        ),
        why=(
            "OpenAI sends no `event:` lines on chat completions. openai-python ignores the name, "
            "but a browser EventSource delivers an event named anything but `message` only to "
            "listeners for that name, not to `onmessage`."
        ),
        clients=(
            "Beyond the matrix: openai-python ignores `event:` names; a "
            "spec-following parser sets the event type, and clients that dispatch on it can skip "
            "the data."
        ),
        example=('event: chunk\ndata: {...,"delta":{"content":"Hi"}}\n\n'),
        fix=('Send no `event:` line:\ndata: {...,"delta":{"content":"Hi"}}\n\n'),
    ),
)


@EVENT_NAME.on(RULE)
def check(c: StreamChecker, ev: Event, name: str) -> None:
    """An `event:` line on chat output (once per name; a native name is N001's)."""
    if (
        name != "error"
        and not native.is_native_event_name(name)
        and c.first_time(f"{RULE.code}:{name}")
    ):
        c.report(RULE, f"`event: {name}` on chat output", ev)
