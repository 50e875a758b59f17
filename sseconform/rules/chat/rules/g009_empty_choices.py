"""G009 empty-choices: A chunk with `choices: []` that is not the usage chunk."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import CHOICES_EMPTY
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "G009",
    "empty-choices",
    Severity.WARNING,
    None,
    "A chunk with `choices: []` that is not the usage chunk.",
    RuleDoc(
        what=(
            "A chunk with `choices: []` and no non-null `usage`, e.g. Azure's first chunk that "
            "carries only `prompt_filter_results`."
        ),
        why=(
            "OpenAI sends an empty choices list only on the usage chunk, and only when "
            "`stream_options.include_usage` was asked; clients that read `choices[0]` of every "
            "chunk fail on any other."
        ),
        clients=(
            "The function-calling guide snippet reads `choices[0]` of every chunk: measured, it "
            "raised IndexError on an empty-choices usage chunk it had not asked for, and an "
            "empty-choices chunk of any other kind breaks it the same way."
        ),
        fix=(
            "Drop the chunk, or move what it carries to the first real chunk:\n"
            'data: {...,"choices":[{"index":0,"delta":{"role":"assistant","content":""}}]}\n'
            "\n"
        ),
    ),
)


@CHOICES_EMPTY.on(RULE)
def check(c: StreamChecker, ev: Event) -> None:
    """`choices: []` on a chunk that is not the usage chunk."""
    c.report(RULE, "`choices: []` on a chunk that is not the usage chunk", ev)
