"""D001 done-missing: The stream does not end with `data: [DONE]`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import END
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker

RULE = define(
    "D001",
    "done-missing",
    Severity.WARNING,
    None,
    "The stream does not end with `data: [DONE]`.",
    RuleDoc(
        what=(
            "No `data: [DONE]` frame at all. When the stream also has no finish chunk and no "
            "error frame, E003 is reported instead; after an error frame, E002 is."
        ),
        why=(
            "`[DONE]` is how OpenAI ends a stream; without it a consumer can only tell a complete "
            "stream from a cut connection by the finish chunk."
        ),
        clients=(
            "It is still part of OpenAI's grammar, and "
            "consumers that take `[DONE]` as proof of a complete answer report a failure."
        ),
        fix=('data: {...,"delta":{},"finish_reason":"stop"}\n\ndata: [DONE]\n\n'),
    ),
)


@END.on(RULE)
def check(c: StreamChecker) -> None:
    """Every choice finished, no error frame, and no `[DONE]` at the end."""
    choices = c.choices
    if (
        c.error_frame is None
        and choices
        and all(ch.finish is not None for ch in choices.values())
        and not c.done
    ):
        c.report_at_end(RULE, "the stream does not end with data: [DONE]")
