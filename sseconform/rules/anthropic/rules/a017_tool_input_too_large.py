"""A017 tool-input-too-large: A tool block's input is over the checker's size limit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import INPUT_TOO_LARGE
from sseconform.rules.anthropic.invariants import TOOL_INPUT_JSON
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.rules.anthropic.state import Block
    from sseconform.sse.decoder import Event

RULE = define(
    "A017",
    "tool-input-too-large",
    Severity.WARNING,
    TOOL_INPUT_JSON,
    "A tool block's input is over the checker's size limit.",
    RuleDoc(
        what=(
            "A tool block's input_json_delta pieces add up to more than "
            "`max_arguments` characters, so they were not kept and not parsed."
        ),
        why=(
            "Keeping inputs whole is the one thing the checker stores; the limit "
            "keeps memory bounded on hostile streams. The input is not known to be wrong."
        ),
        clients="Not a client failure: it says the input was not checked.",
        fix=(
            "Raise max_arguments, or check the stream with a smaller one to find "
            "where the input grows."
        ),
    ),
)


@INPUT_TOO_LARGE.on(RULE)
def check(c: AnthropicChecker, ev: Event, block: Block, what: str) -> None:
    """A tool input over max_arguments: not parsed."""
    c.report(
        RULE,
        f"{what}: {block.size} characters of input, over the {c.max_input} limit: not parsed",
        ev,
    )
