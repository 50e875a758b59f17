"""S074 reasoning-id-changed: the terminal output gives a reasoning item another id."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

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
