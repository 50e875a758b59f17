"""V010 usage-count-decreasing: A usageMetadata count went down."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import USAGE_COUNTS, USAGE_RUN
from sseconform.rules.gemini.invariants import USAGE

if TYPE_CHECKING:
    from sseconform.rules.catalog import Rule
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V010",
    "usage-count-decreasing",
    Severity.WARNING,
    USAGE,
    "A usageMetadata count went down.",
    RuleDoc(
        what=(
            "A count of `usageMetadata` (the prompt's, the candidates', the thoughts', the "
            "total) is lower than the same count in an earlier chunk. Each chunk's usage is "
            "the count so far."
        ),
        why="A client that keeps the last usage it saw reports too little.",
        clients="google-genai and Gemini CLI keep the last chunk's usage.",
        fix="Send the counts so far, never less than before.",
    ),
)


@USAGE_COUNTS.on(RULE)
def check(c: GeminiChecker, ev: Event, usage: dict[str, Any]) -> None:
    """A usageMetadata count went down."""
    before = c.state.usage
    for key, n in usage.items():
        was = before.get(key)
        if type(n) is int and was is not None and n < was and c.first_time(f"{RULE.code}:{key}"):
            c.report(RULE, f"{key} went down from {was} to {n}", ev, f"/usageMetadata/{key}")


@USAGE_RUN.on(RULE)
def check_run(
    c: GeminiChecker, keys: tuple[str | None, ...], counts: list[list[int]], veto: list[Rule]
) -> None:
    """A run of chunks in which a count goes down (from the last count before it, too)."""
    before = c.state.usage
    for key, col in zip(keys, counts, strict=True):
        if key is None:
            continue
        seq = [before[key], *col] if key in before else col
        if seq != sorted(seq):  # not going down: already in order (one C-level pass)
            veto.append(RULE)
            return
