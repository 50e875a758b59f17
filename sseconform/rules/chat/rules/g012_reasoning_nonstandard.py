"""G012 reasoning-nonstandard: Reasoning under `reasoning`/`reasoning_details`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import UNKNOWN_KEY
from sseconform.rules.docs import RuleDoc
from sseconform.rules.native import NONSTANDARD_REASONING

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "G012",
    "reasoning-nonstandard",
    Severity.INFO,
    None,
    "Reasoning under `reasoning`/`reasoning_details`.",
    RuleDoc(
        what=(
            "A delta carries reasoning under `reasoning` or `reasoning_details`; reported once "
            "per key. A `reasoning_details` entry that holds only state (a `signature`, "
            "encrypted `data`) is not reasoning text: it is the carrier the client sends back "
            "on its next turn, and the reference translation writes it so."
        ),
        why=(
            "Informational: the key a gateway uses for reasoning decides which clients show it, "
            "and one gateway should use one key."
        ),
        clients=(
            "Measured for `reasoning` as for `reasoning_content`: dropped by `@ai-sdk/openai` and "
            "langchain ChatOpenAI, read by `@ai-sdk/openai-compatible`. `reasoning_details` was "
            "not measured."
        ),
        fix=('data: {...,"delta":{"reasoning_content":"The user wants..."}}\n\n'),
    ),
)


@UNKNOWN_KEY.on(RULE)
def check(c: StreamChecker, ev: Event, key: str, value: object, pointer: str) -> None:
    """Reasoning under a nonstandard key (once per key); ``reasoning_details`` entries that
    hold state alone (signatures, encrypted data) carry no reasoning text."""
    if key not in NONSTANDARD_REASONING:
        return
    if key == "reasoning_details" and not _has_text(value):
        return
    if c.first_time(f"{RULE.code}:{key}"):
        c.report(RULE, f"reasoning sent as `{key}`, not `reasoning_content`", ev, pointer)


def _has_text(details: object) -> bool:
    """Whether some ``reasoning_details`` entry holds reasoning text (or is not a list of
    entries at all: then it is reported as the nonstandard key it is)."""
    if not isinstance(details, list):
        return True
    return any(
        not isinstance(d, dict) or isinstance(d.get("text"), str) or "summary" in d for d in details
    )
