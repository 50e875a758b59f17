"""W006 comment: A comment line (`: ...`), such as a keep-alive."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import anomaly
from sseconform.sse import events as kinds

RULE = define(
    "W006",
    "comment",
    Severity.INFO,
    None,
    "A comment line (`: ...`), such as a keep-alive.",
    RuleDoc(
        what=(
            "Each comment line, i.e. a line starting with `:`, such as `: ping` or `: OPENROUTER "
            "PROCESSING`."
        ),
        why=(
            "Comments are the right way to keep a connection alive; they are reported for "
            "information, to show what a gateway adds and how often."
        ),
        clients=("A spec-following parser skips comment lines."),
        example=(': OPENROUTER PROCESSING\n\ndata: {...,"delta":{"content":"Hi"}}\n\n'),
        fix=("Nothing to fix. Keep keep-alives as comments, never as data (see W012):\n: ping\n\n"),
    ),
)

#: The decoder finds it; the checker base places it at the start of its event.
anomaly(RULE, kinds.COMMENT, "comment line: {!r}")
