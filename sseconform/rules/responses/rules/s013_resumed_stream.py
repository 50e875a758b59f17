"""S013 resumed-stream: The stream was resumed mid-sequence (``starting_after``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import RESUMED

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S013",
    "resumed-stream",
    Severity.INFO,
    "sequence-numbers",
    "The stream was resumed mid-sequence (`starting_after`).",
    RuleDoc(
        what=(
            "The stream is the rest of a background response, asked for again with "
            "`GET /v1/responses/{id}?stream=true&starting_after=N`: declared with `--resumed`, "
            "read from a recording's request URL, or told by a first `sequence_number` past 0. "
            "Its first event may be any event; items and parts begun before it are taken as "
            "they come (no S001, S020, S023, S024 or S029 for them), and the terminal output "
            "is compared item by item at their output_index. With `starting_after` known, the "
            "first event must be number N+1 (S010/S011 otherwise)."
        ),
        why=(
            "A resumed stream is what the provider sends, not a fault: reporting its missing "
            "beginning as errors would be a false alarm on OpenAI's own output. The note says "
            "how the stream was read, so a stream whose beginning a gateway dropped is not "
            "silently excused: its first event is past 0 and this note names it."
        ),
        clients=(
            "Resumed mid-message (fail/S013-resumed-after-queued), the AI SDK's Responses "
            "provider fails on the first delta of a part it never saw added; resumed at an item "
            "boundary (pass/resumed-at-item-boundary) it reads the rest. Codex CLI reads both "
            "whole (it takes items from `output_item.done`). openai-python's "
            "`responses.stream()` helper raises at a first event that is not "
            "`response.created` (a limit of the helper: iterating "
            "`responses.retrieve(id, stream=True, starting_after=N)` reads every event)."
        ),
        fix=(
            "Nothing to fix in a resumed stream. A stream that was not resumed must start at "
            "sequence_number 0 with `response.created` (or `response.queued`)."
        ),
    ),
)


@RESUMED.on(RULE)
def check(c: ResponsesChecker, ev: Event, said: str) -> None:
    """How the stream was read: resumed, so its first items are taken as they come."""
    c.report(RULE, f"{said}; items begun before it are taken as they come", ev)
