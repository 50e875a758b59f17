"""T006 head-repeated: A later delta repeats the call's id or name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import TOOL_CALL_HEAD, Severity, define
from sseconform.rules.chat.hooks import CALL_HEAD_REPEATED
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "T006",
    "head-repeated",
    Severity.ERROR,
    TOOL_CALL_HEAD,
    "A later delta repeats the call's id or name.",
    RuleDoc(
        what=(
            "A later delta of a call repeats the same `id` or the same `function.name`; reported "
            "once per call."
        ),
        why=(
            "Allowed by the grammar (later deltas omit id and name or repeat them exactly), but "
            "clients that concatenate every string field turn the repeats into garbage."
        ),
        clients=(
            "WRONG in the openai-python `.stream()` accumulator, which concatenates the ids "
            "(`call_1call_1...`); langchain-openai concatenates the name."
        ),
        fix=(
            "Send id and name in the first delta only:\n"
            'data: {...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}\n'
            "\n"
        ),
    ),
)


@CALL_HEAD_REPEATED.on(RULE)
def check(c: StreamChecker, ev: Event, where: str, idx: int) -> None:
    """A later delta repeats the call's id or name (said once per call)."""
    c.report(RULE, f"a later delta of call {idx} repeats its id or name", ev, where)
