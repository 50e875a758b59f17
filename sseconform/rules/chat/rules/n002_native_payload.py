"""N002 native-payload: A frame shaped like a native event."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import NO_NATIVE_LEAK, Severity, define
from sseconform.rules.chat.hooks import NATIVE_PAYLOAD
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "N002",
    "native-payload",
    Severity.ERROR,
    NO_NATIVE_LEAK,
    "A frame shaped like a native event.",
    RuleDoc(
        what=(
            "A frame shaped like a native event: a top-level `type` that is a native event type, "
            "Gemini keys (`candidates`, `usageMetadata`, `promptFeedback`), Responses keys "
            "(`response`, `sequence_number`) or an Anthropic-shaped top-level `message` or "
            "`delta`. It is not also checked as a chunk; Anthropic's "
            '`{"type":"error","error":{...}}` also counts as an error frame.'
        ),
        why=(
            "Invariant 5: the client receives a payload of another API, which it cannot read. "
            "Usually a dialect the gateway does not translate, or an event type it forgot."
        ),
        clients=(
            "Measured with a leaked native Anthropic frame: ERR in all four AI SDK clients (type "
            "validation), TypeError in naive openai-python loops."
        ),
        fix=(
            "Translate it; message_start becomes the role chunk:\n"
            'data: {"id":"msg_1",...,"delta":{"role":"assistant","content":""}}\n'
            "\n"
        ),
    ),
)


@NATIVE_PAYLOAD.on(RULE)
def check(c: StreamChecker, ev: Event, what: str) -> None:
    """A provider's native event as the frame."""
    c.report(RULE, f"a native event leaked ({what})", ev)
