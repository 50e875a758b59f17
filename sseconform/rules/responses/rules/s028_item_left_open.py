"""S028 item-left-open: `response.completed` with items never done."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

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
