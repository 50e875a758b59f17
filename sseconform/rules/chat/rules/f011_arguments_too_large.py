"""F011 arguments-too-large: Arguments over the size limit: not parsed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.chat.hooks import ARGUMENTS_TOO_LARGE
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Call, Choice

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


@ARGUMENTS_TOO_LARGE.on(RULE)
def check(c: StreamChecker, choice: Choice, call: Call) -> None:
    """A finished call's arguments over max_arguments: not parsed."""
    limit = c.settings.max_arguments
    c.report(
        RULE,
        f"call {call.index} ({call.name!r}, first delta in frame {call.frame}): {call.size} "
        f"bytes of arguments, over the {limit}-byte limit: not parsed as JSON",
        choice.finish_event,
        f"/choices/{choice.finish_pos}/finish_reason",
    )
