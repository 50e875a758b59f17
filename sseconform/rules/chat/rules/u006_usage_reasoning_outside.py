"""U006 usage-reasoning-outside: Reasoning left out of completion_tokens."""

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
    "U006",
    "usage-reasoning-outside",
    Severity.WARNING,
    None,
    "Reasoning left out of completion_tokens.",
    RuleDoc(
        what=(
            "`completion_tokens` leaves the reasoning tokens out while `total_tokens` counts "
            "them: prompt + completion + reasoning = total, reasoning above zero. The numbers are "
            "consistent, spelled as xAI spells them; sseconform reads the completion as "
            "completion_tokens + reasoning_tokens (in `diff` too), so this is no U004."
        ),
        why=(
            "OpenAI counts reasoning inside `completion_tokens` (U004 gives the definition). A "
            "client that bills completion_tokens at the output price, or adds the two counts, "
            "gets the wrong figure for this stream. A warning, not an error: it is what a "
            "provider itself sends (xAI: every Grok capture in the real-stream corpus), and the "
            "tokens are all counted; a gateway that serves OpenAI clients should normalise it "
            "(the Portkey gateway spells Gemini's thoughts this way)."
        ),
        clients=(
            "No client fails; what goes wrong is arithmetic on the counts (cost, context budgets) "
            "that assumes OpenAI's definition."
        ),
        fix=(
            "To serve OpenAI's definition, count the reasoning in the completion:\n"
            "data: "
            '{...,"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":291,"total_tokens":'
            '303,"completion_tokens_details":{"reasoning_tokens":290}}}\n'
            "\n"
        ),
    ),
)


@USAGE.on(RULE)
def check(c: StreamChecker, ev: Event, usage: Any, tokens: Tokens | None, again: bool) -> None:
    """completion_tokens that leave out the reasoning tokens total_tokens counts."""
    if tokens is not None and tokens.reasoning_outside:
        c.report(
            RULE,
            f"completion_tokens {tokens.sent_completion} leaves out the "
            f"{tokens.reasoning} reasoning_tokens that total_tokens {tokens.total} "
            f"counts: read as completion {tokens.completion}",
            ev,
            "/usage/completion_tokens",
        )
