"""I003 index-skipped: A new call does not take the next index."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import STABLE_INDEX, Severity, define
from sseconform.rules.chat.hooks import CALL_ADDED
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import CALL_HEAD, chunk

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import CallHead
    from sseconform.sse.decoder import Event

RULE = define(
    "I003",
    "index-skipped",
    Severity.ERROR,
    STABLE_INDEX,
    "A new call does not take the next index.",
    RuleDoc(
        what=(
            "A new call's index is not the next one (highest index so far in the choice + 1, from "
            "0), e.g. a first call with index 1."
        ),
        why=(
            "New calls take the next index from 0. A gap usually means a native index was copied "
            "through: Anthropic's block index counts text blocks too, and the Responses API's "
            "`output_index` counts reasoning and message items. Gateways keep getting this wrong "
            "(Envoy AI Gateway PR #1524; LiteLLM PR #16194, the Gemini index bug fixed three "
            "times)."
        ),
        clients=(
            "Beyond the matrix: Clients that keep calls in a list by index "
            "can get a hole or an IndexError; those that use a mapping still work, but code that "
            "expects `tool_calls[0]` finds nothing there."
        ),
        fix=(chunk('"delta":{"content":"Let me check."}') + CALL_HEAD),
    ),
)


@CALL_ADDED.on(RULE)
def check(c: StreamChecker, ev: Event, head: CallHead) -> None:
    """A new call at another index than the next (a delta with no index is I001's)."""
    if "index" in head.tc and head.idx != head.choice.max_call + 1:
        c.report(
            RULE,
            f"new call takes index {head.idx}, expected {head.choice.max_call + 1}",
            ev,
            f"{head.where}/index",
        )
