"""S035 item-done-mismatch: `output_item.done` differs from what was streamed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import ITEM_DONE
from sseconform.rules.responses.state import differs

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.rules.responses.state import Item
    from sseconform.sse.decoder import Event

RULE = define(
    "S035",
    "item-done-mismatch",
    Severity.ERROR,
    "done-matches-deltas",
    "`output_item.done` differs from what was streamed.",
    RuleDoc(
        what=(
            "The `item` of `response.output_item.done` changes the `id` or `type` the item was "
            "added with (or a function call's `call_id` or `name`), or its text, refusal, "
            "reasoning summary or arguments are not what the stream built."
        ),
        why=(
            "The done item is what clients keep in the conversation: a different id breaks the "
            "next turn's references, a different text is not what the user saw."
        ),
        clients=(
            'openai-python: `responses.stream()` raises RuntimeError ("Completed output item '
            'identity changed.") when the call_id changes. Codex CLI keeps the done item as '
            "the turn's history (from its source; not measured here), so a different text or "
            "arguments there is what the model sees next."
        ),
        fix="Repeat the added item's identity and the streamed values in `output_item.done`.",
    ),
)


#: Items whose call_id and name a client sends back: they may not change once added.
CALLS = frozenset({"function_call", "custom_tool_call"})


@ITEM_DONE.on(RULE)
def check(
    c: ResponsesChecker, ev: Event, item: Item, got: dict[str, Any], values: dict[str, str]
) -> None:
    """An item done with another identity, or other strings, than the stream built."""
    changed = [
        f"{f} {got.get(f)!r} (added as {getattr(item, f)!r})"
        for f in ("id", "type", "call_id", "name")
        if (f in ("id", "type") or (isinstance(item.type, str) and item.type in CALLS))
        and getattr(item, f) is not None
        and f in got
        and got.get(f) != getattr(item, f)
    ]
    # what was built is short because of S024, already reported
    said = "" if item.lost else differs(item, values, final=False)
    if changed or said:
        what = "; ".join(changed) if changed else f"{said} differs from what was built"
        c.report(RULE, f"output_item.done for output_index {item.index}: {what}", ev, "/item")
