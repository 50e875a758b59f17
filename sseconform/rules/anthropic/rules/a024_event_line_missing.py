"""A024 event-line-missing: An event without an `event:` line."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import EVENT_NAME
from sseconform.rules.anthropic.invariants import EVENT_NAME_MATCHES_TYPE
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A024",
    "event-line-missing",
    Severity.ERROR,
    EVENT_NAME_MATCHES_TYPE,
    "An event without an `event:` line.",
    RuleDoc(
        what=(
            "An event other than `ping` sent as `data:` alone, with no `event:` "
            "line (reported once, at the first)."
        ),
        why=(
            "Anthropic names every event. Both Anthropic SDKs skip events that "
            "have no name (the Python one drops `event` None outright), so a "
            "data-only stream is empty to them."
        ),
        clients=(
            "All events unnamed: anthropic-python fails (AssertionError, no message), "
            "@anthropic-ai/sdk fails ('request ended without sending any chunks'), Claude Code "
            "sees no events and retries without streaming; @ai-sdk/anthropic reads the data. A "
            "data-only `ping` harms none of them."
        ),
        fix=('event: message_start\ndata: {"type":"message_start","message":{...}}\n\n'),
    ),
)


@EVENT_NAME.on(RULE)
def check(c: AnthropicChecker, ev: Event, name: str | None, kind: str) -> None:
    """An event without an `event:` line (said once; a ping may go without)."""
    if name is None and kind != "ping" and c.first_time(RULE.code):
        c.report(
            RULE,
            f"a {kind} event without an `event:` line (the first such event): "
            "the Anthropic SDKs skip events that have no name",
            ev,
        )
