"""N001 native-event-name: An `event:` field with a native name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules import native
from sseconform.rules.catalog import NO_NATIVE_LEAK, Severity, define
from sseconform.rules.chat.hooks import EVENT_NAME
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "N001",
    "native-event-name",
    Severity.ERROR,
    NO_NATIVE_LEAK,
    "An `event:` field with a native name.",
    RuleDoc(
        what=(
            "An `event:` line with an Anthropic event name (message_start, message_delta, "
            "message_stop, content_block_start, content_block_delta, content_block_stop, ping) or "
            "a Responses API one (any name starting `response.`). `event: error` is W014."
        ),
        why=(
            "Provider-native names must not reach chat-completions clients (invariant 5); they "
            "show that the gateway passed the upstream stream through instead of translating it."
        ),
        clients=(
            "openai-python ignores `event:` names, so the name alone changes nothing there; but "
            "it comes with a native payload (N002), which fails type validation in all four AI "
            "SDK clients and raises TypeError in naive openai-python loops."
        ),
        fix=('Translate the event into a chunk:\ndata: {...,"delta":{"content":"Hi"}}\n\n'),
    ),
)


@EVENT_NAME.on(RULE)
def check(c: StreamChecker, ev: Event, name: str) -> None:
    """A provider's native event name (once per name)."""
    if (
        name != "error"
        and native.is_native_event_name(name)
        and c.first_time(f"{RULE.code}:{name}")
    ):
        c.report(RULE, f"native event name `event: {name}`", ev)
