"""W007 unknown-sse-field: A line whose field name is not data, event, id or retry."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import anomaly
from sseconform.sse import events as kinds

RULE = define(
    "W007",
    "unknown-sse-field",
    Severity.WARNING,
    None,
    "A line whose field name is not data, event, id or retry.",
    RuleDoc(
        what=(
            "A line whose field name is not `data`, `event`, `id` or `retry`, e.g. `foo: bar`; "
            "reported once per field name."
        ),
        why=(
            "Parsers ignore such lines, so whatever the line carried is lost. Often it is a "
            "framing bug: a payload broken over several lines where only the first line has the "
            "`data:` prefix."
        ),
        clients=(
            "Beyond the matrix: A spec-following parser ignores the line; when the "
            "line was the tail of a payload, the event's data is cut short and does not parse "
            "(J001)."
        ),
        example=(
            "x-upstream: anthropic\n"
            'data: {...,"delta":{"content":"Hi"}}\n'
            "\n"
            'data: {...,"delta":\n'
            '{"content":" there"}}\n'
            "\n"
        ),
        fix=(
            "Write each payload on one line; put metadata in HTTP headers:\n"
            'data: {...,"delta":{"content":" there"}}\n'
            "\n"
        ),
    ),
)

#: The decoder finds it; the checker base places it at the start of its event.
anomaly(RULE, kinds.UNKNOWN_FIELD, "unknown field {!r}: parsers ignore the line")
