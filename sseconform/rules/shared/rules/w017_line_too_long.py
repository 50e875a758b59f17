"""W017 line-too-long: A line longer than the line-length limit."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import anomaly
from sseconform.sse import events as kinds

RULE = define(
    "W017",
    "line-too-long",
    Severity.WARNING,
    None,
    "A line longer than the line-length limit.",
    RuleDoc(
        what=(
            "A line longer than the line-length limit (16 MiB by default); its content is "
            "skipped, so the rules that would read it cannot."
        ),
        why=(
            "A line that long is either a huge payload in one event or a body no longer framed as "
            "SSE; every client must hold the whole line in memory before it can show any of it."
        ),
        clients=(
            "Beyond the matrix: A spec-following parser has no limit and buffers the "
            "whole line; readers with a buffer limit fail, and no client shows anything until the "
            "line ends."
        ),
        example=(
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"<20 MiB of '
            'JSON>"}}]}}\n'
            "\n"
        ),
        fix=(
            "Send large arguments as fragments, one event each:\n"
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"rows\\":["}}]}}\n'
            "\n"
        ),
    ),
)

#: The decoder finds it; the checker base places it at the start of its event.
anomaly(RULE, kinds.LINE_TOO_LONG, "line too long ({}); its content was skipped")
