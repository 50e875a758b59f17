"""S028 item-left-open: `response.completed` with items never done."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import TERMINAL

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.rules.responses.state import Item
    from sseconform.sse.decoder import Event

RULE = define(
    "S028",
    "item-left-open",
    Severity.ERROR,
    "refs-resolve",
    "`response.completed` with items never done.",
    RuleDoc(
        what=(
            "`response.completed` arrives while an output item added earlier has had no "
            "`response.output_item.done`. A `mcp_list_tools` item the terminal output finishes "
            "(its id at its output_index, a final status) is not reported: OpenAI finishes "
            "hosted MCP tool listings only there, and no measured client reads their `.done`."
        ),
        why=(
            "Clients take each item's final state from `output_item.done`: an item never done is "
            "never final."
        ),
        clients=(
            "openai-python: takes the final response from `response.completed` and read the "
            "measured case right; case pass/mcp-list-tools-terminal-only (the shape OpenAI "
            "sends) reads whole in every client of the matrix. Codex CLI builds the turn from "
            "`output_item.done` items (from its source; not measured here), so an item that is "
            "never done is missing from its history."
        ),
        fix="Send `response.output_item.done` for every item before the terminal event.",
    ),
)


#: Hosted-tool items the provider may finish only in the terminal output (OpenAI does, for
#: ``mcp_list_tools``), with no ``output_item.done``: no client reads their ``.done``.
TERMINAL_ONLY = frozenset({"mcp_list_tools"})


def finished_in(item: Item, output: Any) -> bool:
    """A hosted-tool item that only the terminal output finishes (``TERMINAL_ONLY``): its
    entry at its output_index has its id and a final status."""
    if not isinstance(item.type, str) or item.type not in TERMINAL_ONLY:
        return False
    if not isinstance(output, list):
        return False
    got = output[item.index] if 0 <= item.index < len(output) else None
    return (
        type(got) is dict
        and got.get("type") == item.type
        and got.get("id") == item.id
        and got.get("status", "completed") in ("completed", "failed", "incomplete")
    )


@TERMINAL.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str, response: dict[str, Any]) -> None:
    """response.completed while items are still open."""
    if kind != "response.completed":
        return
    output = response.get("output")
    open_items = [i.index for i in c.items.values() if not i.done and not finished_in(i, output)]
    if open_items:
        c.report(RULE, f"response.completed with output_index {open_items} never done", ev)
