"""S060 done-sentinel-after-terminal: `data: [DONE]` after the terminal event."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import DONE_SENTINEL

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S060",
    "done-sentinel-after-terminal",
    Severity.WARNING,
    "no-foreign-shapes",
    "`data: [DONE]` after the terminal event.",
    RuleDoc(
        what="A `data: [DONE]` line in a Responses stream, after its terminal event.",
        why=(
            "`[DONE]` ends chat-completions streams; the Responses API ends with its terminal "
            "event and sends no `[DONE]`. It usually means a gateway wrote its chat framing around "
            "Responses events."
        ),
        clients=(
            "openai-python: stops at `[DONE]` without harm when it comes last (the measured "
            "case read right). Clients that parse every data line as JSON fail on it."
        ),
        fix='data: {"type":"response.completed",...}\n\n',
    ),
)


@DONE_SENTINEL.on(RULE)
def check(c: ResponsesChecker, ev: Event) -> None:
    """A chat stream's terminator after the terminal event."""
    if c.terminal is not None:
        c.report(RULE, "`data: [DONE]` after the terminal event (a chat shape)", ev)
