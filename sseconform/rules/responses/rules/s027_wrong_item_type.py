"""S027 wrong-item-type: An event aimed at an item or part of another type."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import WRONG_TYPE

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S027",
    "wrong-item-type",
    Severity.ERROR,
    "refs-resolve",
    "An event aimed at an item or part of another type.",
    RuleDoc(
        what=(
            "A delta for an item or part whose type does not take it: `function_call_arguments.*` "
            "on an item that is not a `function_call`, `output_text.*` on a refusal part, a "
            "content part on a function call, a hosted-tool event on another tool's item."
        ),
        why=(
            "Clients dispatch on the item's type; a delta of the wrong kind is either dropped or "
            "written into the wrong field."
        ),
        clients=(
            "openai-python: `responses.stream()` fails an assertion (AssertionError) at a "
            "`function_call_arguments.delta` aimed at a message item."
        ),
        fix="Add a `function_call` item for the arguments and aim their deltas at its index.",
    ),
)


@WRONG_TYPE.on(RULE)
def check(
    c: ResponsesChecker, ev: Event, kind: str, what: str, got: Any, want: Any, pointer: str
) -> None:
    """An event about an item or a part of another type than it is for."""
    if what == "item":
        said = f"{kind} for output_index {got.index}, a {got.type} item, not {want}"
    elif what == "part":
        said = f"{kind} for a {got.kind} part, not {want}"
    else:
        said = f"{kind} on a {got.type} item"
    c.report(RULE, said, ev, pointer)
