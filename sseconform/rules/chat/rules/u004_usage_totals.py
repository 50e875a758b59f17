"""U004 usage-totals: Token counts that contradict each other."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import USAGE
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.usage import Tokens
    from sseconform.sse.decoder import Event

RULE = define(
    "U004",
    "usage-totals",
    Severity.WARNING,
    None,
    "Token counts that contradict each other.",
    RuleDoc(
        what=(
            "The usage counts contradict OpenAI's definition of them, which sseconform uses "
            "everywhere (`check` and `gate`/`diff` alike): `prompt_tokens` counts every input "
            "token, `prompt_tokens_details.cached_tokens` included (cached <= prompt); "
            "`completion_tokens` counts every generated token, "
            "`completion_tokens_details.reasoning_tokens` included (reasoning <= completion); "
            "`total_tokens = prompt_tokens + completion_tokens`. Checked where the numbers are "
            "there (non-negative integers). One spelling is accepted, because xAI sends it on its "
            "own API: `completion_tokens` without the reasoning and `total_tokens` with it "
            "(prompt + completion + reasoning = total), read as completion + reasoning (U006, a "
            "warning). Reasoning above the completion while prompt + completion = total is not "
            "that spelling: those reasoning tokens are counted nowhere."
        ),
        why=(
            "Billing and quotas read these numbers; counts that contradict each other mean a "
            "field was mapped from the wrong native counter: Anthropic's `input_tokens` without "
            "its cache reads, Gemini's `candidatesTokenCount` without `thoughtsTokenCount`, a "
            "cached count larger than the prompt it is part of."
        ),
        clients=(
            "No client is expected to fail; the wrong numbers go to whatever bills or rate-limits "
            "on them. Seen in the real-stream corpus: the Vercel AI Gateway serving Gemini "
            "reports reasoning_tokens above completion_tokens with a total that leaves the "
            "reasoning out (25 thought tokens counted nowhere)."
        ),
        fix=(
            "Count the reasoning in the completion, and the completion in the total:\n"
            "data: "
            '{...,"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":27,"total_tokens":36'
            ',"completion_tokens_details":{"reasoning_tokens":25}}}\n'
            "\n"
        ),
    ),
)


@USAGE.on(RULE)
def check(c: StreamChecker, ev: Event, usage: Any, tokens: Tokens | None, again: bool) -> None:
    """Usage counts that do not add up."""
    if tokens is not None and tokens.problems:
        c.report(RULE, "; ".join(tokens.problems), ev, "/usage")
