"""A031 output-tokens-decreasing: message_delta's cumulative output_tokens goes down."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import OUTPUT_TOKENS
from sseconform.rules.anthropic.invariants import USAGE
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A031",
    "output-tokens-decreasing",
    Severity.WARNING,
    USAGE,
    "message_delta's cumulative output_tokens goes down.",
    RuleDoc(
        what=(
            "A `message_delta`'s `usage.output_tokens` is below the count sent "
            "before it (in message_start or an earlier message_delta)."
        ),
        why=(
            "The counts in message_delta are cumulative totals that replace the "
            "earlier ones; a smaller one is a per-chunk count sent as a total, and "
            "the message's usage ends too low."
        ),
        clients=(
            "anthropic-python, @anthropic-ai/sdk, @ai-sdk/anthropic and Claude Code take the "
            "last value as the total."
        ),
        fix=(
            'message_start ... "usage":{"input_tokens":12,"output_tokens":1}\n'
            'message_delta ... "usage":{"output_tokens":43}\n'
        ),
    ),
)


@OUTPUT_TOKENS.on(RULE)
def check(c: AnthropicChecker, ev: Event, out: int, before: int | None) -> None:
    """A cumulative output_tokens below the count sent before."""
    if before is not None and out < before:
        c.report(
            RULE,
            f"output_tokens {out} is below the {before} sent before; the count is cumulative",
            ev,
            "/usage/output_tokens",
        )
