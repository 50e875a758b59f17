"""W019 event-too-large: An event whose data is over the event-size limit."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import anomaly
from sseconform.sse import events as kinds

RULE = define(
    "W019",
    "event-too-large",
    Severity.WARNING,
    None,
    "An event whose data is over the event-size limit.",
    RuleDoc(
        what=(
            "One event whose `data:` lines add up to more than the event-size limit (16 MiB by "
            "default; each line also counts 64 bytes): the event is dropped unread, so the rules "
            "that would read it cannot."
        ),
        why=(
            "Every client holds an event whole before it can parse any of it; thousands of "
            "`data:` lines in one event is a body that lost its blank lines."
        ),
        clients=(
            "A spec-following parser has no limit and buffers the whole event; nothing is shown "
            "until it ends, and readers with a buffer limit fail."
        ),
        example=("data: {...\ndata: ...\n(millions of data: lines, no blank line)\n"),
        fix="End each chunk with a blank line: one `data:` line per event.",
    ),
)

#: The decoder finds it; the checker base places it at the start of its event.
anomaly(RULE, kinds.EVENT_TOO_LARGE, "an event too large ({}); it was dropped unread")
