"""A001 message-start-missing: The stream does not open with message_start."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import BEGIN
from sseconform.rules.anthropic.invariants import MESSAGE_START_FIRST
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import BLOCK_START, MESSAGE_START

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A001",
    "message-start-missing",
    Severity.ERROR,
    MESSAGE_START_FIRST,
    "The stream does not open with message_start.",
    RuleDoc(
        what=(
            "The first event other than `ping` (and an `error` event) is not "
            "`message_start`: a content block, a message_delta or message_stop "
            "comes first, or message_start never comes."
        ),
        why=(
            "message_start carries the message shell (id, model, role, usage) that "
            "every client builds the answer on; the SDKs refuse to accumulate "
            "events before it."
        ),
        clients=(
            "anthropic-python: get_final_message() fails (AssertionError; its accumulator "
            "raises 'Unexpected event order, got ... before \"message_start\"'). "
            "@anthropic-ai/sdk: 'request ended without sending any chunks'. Claude Code: "
            "'Message not found', then it retries without streaming. @ai-sdk/anthropic reads "
            "the text."
        ),
        fix=("Send message_start first:\n" + MESSAGE_START + BLOCK_START + "..."),
    ),
)


@BEGIN.on(RULE)
def check(c: AnthropicChecker, ev: Event, kind: str) -> None:
    """The message opens with another event than message_start."""
    if kind != "message_start":
        c.report(RULE, f"the message opens with {kind}, not message_start", ev)
