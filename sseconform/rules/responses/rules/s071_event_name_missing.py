"""S071 event-name-missing: Events without an `event:` line."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S071",
    "event-name-missing",
    Severity.WARNING,
    "event-names",
    "Events without an `event:` line.",
    RuleDoc(
        what="An event without an `event:` line (reported once per stream).",
        why=(
            "OpenAI sends `event: <type>` before each event's data; EventSource listeners "
            "registered per type get nothing without it (the event arrives as `message`)."
        ),
        clients=(
            "openai-python: ignores `event:` names (the measured case read right); Codex CLI "
            "and the AI SDK dispatch on the data's `type` too (from their source)."
        ),
        fix=(
            'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",...}\n\n'
        ),
    ),
)
