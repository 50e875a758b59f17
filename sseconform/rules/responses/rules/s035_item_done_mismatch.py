"""S035 item-done-mismatch: `output_item.done` differs from what was streamed."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S035",
    "item-done-mismatch",
    Severity.ERROR,
    "done-matches-deltas",
    "`output_item.done` differs from what was streamed.",
    RuleDoc(
        what=(
            "The `item` of `response.output_item.done` changes the `id` or `type` the item was "
            "added with (or a function call's `call_id` or `name`), or its text, refusal, "
            "reasoning summary or arguments are not what the stream built."
        ),
        why=(
            "The done item is what clients keep in the conversation: a different id breaks the "
            "next turn's references, a different text is not what the user saw."
        ),
        clients=(
            'openai-python: `responses.stream()` raises RuntimeError ("Completed output item '
            'identity changed.") when the call_id changes. Codex CLI keeps the done item as '
            "the turn's history (from its source; not measured here), so a different text or "
            "arguments there is what the model sees next."
        ),
        fix="Repeat the added item's identity and the streamed values in `output_item.done`.",
    ),
)
