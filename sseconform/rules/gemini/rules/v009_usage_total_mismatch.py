"""V009 usage-total-mismatch: usageMetadata's totalTokenCount is not the sum of its counts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import USAGE_COUNTS, USAGE_RUN
from sseconform.rules.gemini.invariants import USAGE
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.catalog import Rule
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V009",
    "usage-total-mismatch",
    Severity.WARNING,
    USAGE,
    "usageMetadata's totalTokenCount is not the sum of its counts.",
    RuleDoc(
        what=(
            "`totalTokenCount` is not `promptTokenCount` + `candidatesTokenCount` + "
            "`thoughtsTokenCount` + `toolUsePromptTokenCount` (cached tokens are part of the "
            "prompt's). A gateway filled the total from another API's usage, or left "
            "thinking tokens out of it."
        ),
        why=(
            "Cost tracking and context accounting read these counts; when they do not add "
            "up, one of them is wrong."
        ),
        clients=(
            "google-genai and Gemini CLI take the counts as sent (no client checks them): "
            "session statistics and spend tracking built on them are wrong."
        ),
        fix=(
            "Send counts that add up:\n"
            + gemini_chunk(
                '{"text":"."}',
                "STOP",
                '{"promptTokenCount":8,"candidatesTokenCount":4,"thoughtsTokenCount":5,"totalTokenCount":17}',
            )
        ),
    ),
)


@USAGE_COUNTS.on(RULE)
def check(c: GeminiChecker, ev: Event, usage: dict[str, Any]) -> None:
    """usageMetadata's totalTokenCount is not the sum of its counts."""
    total = usage.get("totalTokenCount")
    if type(total) is not int:
        return
    counts = [usage.get(k, 0) for k in PARTS]
    if all(type(n) is int for n in counts) and sum(counts) != total and c.first_time(RULE.code):
        said = " + ".join(f"{k} {n}" for k, n in zip(PARTS, counts, strict=True) if n)
        c.report(
            RULE,
            f"totalTokenCount {total} is not {said or '0'}",
            ev,
            "/usageMetadata/totalTokenCount",
        )


#: The counts the total is made of.
PARTS = (
    "promptTokenCount",
    "candidatesTokenCount",
    "thoughtsTokenCount",
    "toolUsePromptTokenCount",
)


@USAGE_RUN.on(RULE)
def check_run(
    c: GeminiChecker, keys: tuple[str | None, ...], counts: list[list[int]], veto: list[Rule]
) -> None:
    """A run of chunks one of whose totals is not the sum of its counts."""
    by_key = {k: col for k, col in zip(keys, counts, strict=True) if k is not None}
    total = by_key.get("totalTokenCount")
    if total is None:
        return
    parts = [by_key[k] for k in PARTS if k in by_key]
    if not parts or total != list(map(sum, zip(*parts, strict=True))):
        veto.append(RULE)
