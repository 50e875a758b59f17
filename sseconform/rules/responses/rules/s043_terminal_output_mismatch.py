"""S043 terminal-output-mismatch: The terminal output differs from the stream."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import TERMINAL
from sseconform.rules.responses.state import differs, output_pairs, renamed_reasoning, signature

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S043",
    "terminal-output-mismatch",
    Severity.ERROR,
    "one-terminal-event",
    "The terminal output differs from the stream.",
    RuleDoc(
        what=(
            "The terminal event's `response.output` has another number of items than the stream "
            "added, or an item whose id, type, text, refusal, reasoning summary or arguments are "
            "not what the stream built (text compared by hash). A `response.failed` with an empty "
            "output is not compared; "
            "a reasoning item whose id alone changed is S074 (an info); in a resumed stream "
            "(S013) the items are compared at their output_index."
        ),
        why=(
            "The final response is what clients store and what the next turn sends back; the "
            "deltas are what the user saw."
        ),
        clients=(
            "openai-python: `get_final_response()` returns the terminal output: the measured "
            "stream showed 'Hello, world!' and the final response said 'Hello, world'; with a "
            "call missing from the output, the final response had one call of two."
        ),
        fix="Put every streamed item, as done, in the terminal output.",
    ),
)


@TERMINAL.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str, response: dict[str, Any]) -> None:
    """The terminal output against what the stream built, item by item (a failed response
    may carry none)."""
    output = response.get("output")
    if not isinstance(output, list) or (kind == "response.failed" and not output):
        return
    pairs = output_pairs(c.items, c.resumed, output)
    if pairs is None:
        items = c.items
        said = (
            f"the stream reached output_index {max(items)}"
            if c.resumed
            else f"the stream built {len(items)}"
        )
        c.report(RULE, f"{kind} output has {len(output)} items, {said}", ev, "/response/output")
        return
    for pos, item, got in pairs:
        where = f"/response/output/{pos}"
        if not renamed_reasoning(item, got) and (
            ((not item.partial or item.type is not None) and got.get("type") != item.type)
            or (item.id is not None and got.get("id") != item.id)
        ):
            c.report(
                RULE,
                f"output[{pos}] is {got.get('type')} {got.get('id')!r}, "
                f"the stream built {item.type} {item.id!r}",
                ev,
                where,
            )
            continue
        said = differs(item, signature(got), final=True)
        if said:
            c.report(
                RULE,
                f"output[{pos}] ({item.type} {item.id!r}): {said} differs from what "
                "the stream built",
                ev,
                where,
            )
