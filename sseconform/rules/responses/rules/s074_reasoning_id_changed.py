"""S074 reasoning-id-changed: the terminal output gives a reasoning item another id."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import TERMINAL
from sseconform.rules.responses.state import output_pairs, renamed_reasoning

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S074",
    "reasoning-id-changed",
    Severity.INFO,
    "one-terminal-event",
    "A reasoning item's id in the terminal output is not the streamed one.",
    RuleDoc(
        what=(
            "The terminal event's `response.output` holds a reasoning item at the same "
            "output_index as a streamed reasoning item, with another `id`. Its text, summary "
            "and the other items are still compared (S043)."
        ),
        why=(
            "OpenAI itself sends this: the reasoning item's id in the final response is not "
            "the id its `output_item.added`/`.done` carried. Each client reads one of the two "
            "consistently, so nothing a user sees changes; a gateway that caches or replays "
            "reasoning by id must know which one it keeps."
        ),
        clients=(
            "Measured (the client matrix, case fail/S074-reasoning-id-changed): openai-python's "
            "`get_final_response()` returns the terminal id; the AI SDK's Responses provider "
            "(its `itemId` provider metadata) and Codex CLI (the `output_item.done` items) keep "
            "the streamed id; all read the answer whole."
        ),
        fix="Keep each item's id from `output_item.added` to the terminal output.",
    ),
)


@TERMINAL.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str, response: dict[str, Any]) -> None:
    """A reasoning item the terminal output gives another id."""
    output = response.get("output")
    if not isinstance(output, list) or (kind == "response.failed" and not output):
        return
    for pos, item, got in output_pairs(c.items, c.resumed, output) or ():
        if renamed_reasoning(item, got):
            c.report(
                RULE,
                f"output[{pos}] is reasoning {got.get('id')!r}, streamed as {item.id!r}",
                ev,
                f"/response/output/{pos}/id",
            )
