"""F011 arguments-too-large: Arguments over the size limit: not parsed."""

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "F011",
    "arguments-too-large",
    Severity.WARNING,
    FINAL_EMPTY_DELTA,
    "Arguments over the size limit: not parsed.",
    RuleDoc(
        what=(
            "A call's arguments are larger than the argument-size limit (64 MiB by default): they "
            "are not kept whole, so whether they parse as JSON is not checked."
        ),
        why=(
            "Arguments that large are rarely meant; every client holds them whole before it can "
            "run the tool, and the check would need the same memory."
        ),
        clients=(
            "Every client concatenates the fragments in memory and parses them once the call is "
            "complete; a client with a size limit refuses the call."
        ),
        fix=(
            "Send large payloads by reference (a file id or URL) rather than inline, or raise "
            "`max-arguments-bytes` in [tool.sseconform] to check them anyway."
        ),
    ),
)
