"""S045 terminal-usage-inconsistent: The terminal usage does not add up."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import TERMINAL
from sseconform.rules.responses.state import as_int
from sseconform.rules.snippets import USAGE_COMPLETED

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S045",
    "terminal-usage-inconsistent",
    Severity.WARNING,
    "one-terminal-event",
    "The terminal usage does not add up.",
    RuleDoc(
        what=(
            "In the terminal event's `response.usage`: `total_tokens` is not `input_tokens + "
            "output_tokens`, `output_tokens_details.reasoning_tokens` exceeds `output_tokens`, or "
            "`input_tokens_details.cached_tokens` exceeds `input_tokens`."
        ),
        why=(
            "Billing, budgets and context accounting read these numbers; OpenAI counts reasoning "
            "within output and cached within input."
        ),
        clients=(
            "openai-python: passes the numbers through unchecked; every consumer of usage "
            "reads the wrong total."
        ),
        fix=USAGE_COMPLETED,
    ),
)


@TERMINAL.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str, response: dict[str, Any]) -> None:
    """Usage counts that contradict each other."""
    usage = response.get("usage")
    if type(usage) is not dict:
        return
    inp = as_int(usage.get("input_tokens"))
    out = as_int(usage.get("output_tokens"))
    total = as_int(usage.get("total_tokens"))
    problems = []
    if inp is not None and out is not None and total is not None and inp + out != total:
        problems.append(f"total_tokens {total} != input_tokens {inp} + output_tokens {out}")
    details = usage.get("output_tokens_details")
    reasoning = as_int(details.get("reasoning_tokens")) if type(details) is dict else None
    if reasoning is not None and out is not None and reasoning > out:
        problems.append(f"reasoning_tokens {reasoning} > output_tokens {out}")
    details = usage.get("input_tokens_details")
    cached = as_int(details.get("cached_tokens")) if type(details) is dict else None
    if cached is not None and inp is not None and cached > inp:
        problems.append(f"cached_tokens {cached} > input_tokens {inp}")
    if problems:
        c.report(RULE, "; ".join(problems), ev, "/response/usage")
