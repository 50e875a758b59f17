"""S061 done-sentinel-before-terminal: `data: [DONE]` before the terminal event."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import DONE_SENTINEL

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S061",
    "done-sentinel-before-terminal",
    Severity.ERROR,
    "no-foreign-shapes",
    "`data: [DONE]` before the terminal event.",
    RuleDoc(
        what=(
            "`data: [DONE]` before any terminal event: a chat terminator where "
            "`response.completed` should be (no S040 is reported then)."
        ),
        why=("Clients that honour `[DONE]` stop reading there, before the response is complete."),
        clients=(
            "openai-python: stops at `[DONE]`; `get_final_response()` raises RuntimeError "
            '("Didn\'t receive a `response.completed` event.").'
        ),
        fix=(
            'data: {"type":"response.output_item.done",...}\n\ndata: '
            '{"type":"response.completed",...}\n\n'
        ),
    ),
)


@DONE_SENTINEL.on(RULE)
def check(c: ResponsesChecker, ev: Event) -> None:
    """A chat stream's terminator before any terminal event."""
    if c.terminal is None:
        c.report(
            RULE, "`data: [DONE]` before any terminal event: openai-python stops reading here", ev
        )
