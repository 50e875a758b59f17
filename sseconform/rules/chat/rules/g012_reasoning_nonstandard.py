"""G012 reasoning-nonstandard: Reasoning under `reasoning`/`reasoning_details`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import HOOKS
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


@HOOKS.on(RULE, "unknown-key")
def check(c: StreamChecker, ev: Event, key: str, pointer: str) -> None:
    """Reasoning under a nonstandard key (once per key)."""
    if key not in NONSTANDARD_REASONING:
        return
    if key == "reasoning_details" and '"text"' not in ev.data and '"summary"' not in ev.data:
        return  # state alone (signatures, encrypted data): no reasoning text under this key
    if c.first_time(f"{RULE.code}:{key}"):
        c.report(RULE, f"reasoning sent as `{key}`, not `reasoning_content`", ev, pointer)
