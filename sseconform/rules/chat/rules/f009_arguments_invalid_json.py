"""F009 arguments-invalid-json: A call's arguments are not JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.chat.hooks import ARGUMENTS_INVALID
from sseconform.rules.chat.state import unparsed
from sseconform.rules.docs import RuleDoc
from sseconform.rules.snippets import ARGUMENT_FRAGMENTS, chunk

if TYPE_CHECKING:
    import orjson

    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Call, Choice

RULE = define(
    "F009",
    "arguments-invalid-json",
    Severity.ERROR,
    FINAL_EMPTY_DELTA,
    "A call's arguments are not JSON.",
    RuleDoc(
        what=(
            "At the end of the stream, a call's concatenated arguments do not parse as JSON. An "
            'empty string "" counts as `{}` (providers send it for calls without arguments); when '
            "the choice finished with `length`, F010 is reported instead."
        ),
        why=(
            "When finish_reason is `tool_calls`, each call's arguments must parse as JSON; a "
            "client cannot run a call whose arguments it cannot read. A lost or duplicated "
            "fragment shows up here."
        ),
        clients=(
            "ERR or WRONG in every measured client: ai 5 `@ai-sdk/openai` silently drops the "
            "call, langchain-openai silently 'repairs' the arguments, the others throw or return "
            "the broken arguments."
        ),
        fix=(
            "Forward every fragment, in order, exactly once:\n"
            + ARGUMENT_FRAGMENTS
            + chunk('"delta":{},"finish_reason":"tool_calls"')
        ),
    ),
)


@ARGUMENTS_INVALID.on(RULE)
def check(
    c: StreamChecker, choice: Choice, call: Call, text: str, exc: orjson.JSONDecodeError
) -> None:
    """A finished call's arguments that are not JSON (not cut by the length limit: F010)."""
    if choice.finish != "length":
        c.report(
            RULE,
            unparsed(call, text, exc),
            choice.finish_event,
            f"/choices/{choice.finish_pos}/finish_reason",
        )
