"""S029 part-left-open: An item done with parts never done."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S029",
    "part-left-open",
    Severity.WARNING,
    "refs-resolve",
    "An item done with parts never done.",
    RuleDoc(
        what=(
            "`response.output_item.done` for an item one of whose content or summary parts never "
            "got its `content_part.done` (`reasoning_summary_part.done`)."
        ),
        why=(
            "Each part ends with its own `.done`; clients that close a text block on it leave the "
            "block open."
        ),
        clients=(
            "openai-python: does not need `content_part.done` (the measured case read right). "
            "Clients that end a text part on the part's `.done` never end it."
        ),
        fix=(
            'data: {"type":"response.output_text.done",...}\n\ndata: '
            '{"type":"response.content_part.done",...}\n\ndata: '
            '{"type":"response.output_item.done",...}\n\n'
        ),
    ),
)
