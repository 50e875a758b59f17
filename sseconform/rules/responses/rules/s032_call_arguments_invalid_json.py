"""S032 call-arguments-invalid-json: A call's final arguments are not JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import ARGUMENTS_INVALID

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S032",
    "call-arguments-invalid-json",
    Severity.ERROR,
    "done-matches-deltas",
    "A call's final arguments are not JSON.",
    RuleDoc(
        what=(
            "The `arguments` of `response.function_call_arguments.done` (or "
            "`mcp_call_arguments.done`) do not parse as JSON."
        ),
        why="Function arguments are a JSON object the client parses before calling the tool.",
        clients=(
            "openai-python: returns the broken string as `arguments` without complaint; the "
            "tool call then fails where the caller parses it."
        ),
        fix=(
            'data: {"type":"response.function_call_arguments.done","arguments":"{\\"city\\": '
            '\\"Paris\\"}",...}\n\n'
        ),
    ),
)


@ARGUMENTS_INVALID.on(RULE)
def check(c: ResponsesChecker, ev: Event, said: str, pointer: str, cut: bool) -> None:
    """Arguments that are not JSON, and no token limit cut them."""
    if not cut:
        c.report(RULE, said, ev, pointer)
