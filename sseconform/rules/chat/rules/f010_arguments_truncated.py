"""F010 arguments-truncated: Arguments cut short under `length`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.chat.hooks import ARGUMENTS_INVALID
from sseconform.rules.chat.state import unparsed
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    import orjson

    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Call, Choice

RULE = define(
    "F010",
    "arguments-truncated",
    Severity.WARNING,
    FINAL_EMPTY_DELTA,
    "Arguments cut short under `length`.",
    RuleDoc(
        what=(
            "The choice finished with `length` and a call's arguments do not parse as JSON: the "
            "call was cut by the token limit."
        ),
        why=(
            "Not a gateway bug as such: the model ran out of tokens mid-call (Anthropic's "
            "`partial_json` can be invalid JSON when max_tokens cuts a call). The gateway must "
            "keep `length`, not turn it into `tool_calls`, so clients know the call is incomplete."
        ),
        clients=(
            "Clients that do not raise drop or 'repair' the call silently, so an honest "
            "`length` is the only clue a client gets."
        ),
        fix=(
            "Keep `length` and never complete or re-label the call; raise the upstream token "
            "limit if calls are routinely cut:\n"
            'data: {...,"delta":{},"finish_reason":"length"}\n'
            "\n"
        ),
    ),
)


@ARGUMENTS_INVALID.on(RULE)
def check(
    c: StreamChecker, choice: Choice, call: Call, text: str, exc: orjson.JSONDecodeError
) -> None:
    """A finished call's arguments that are not JSON because the length limit cut them."""
    if choice.finish == "length":
        c.report(
            RULE,
            unparsed(call, text, exc),
            choice.finish_event,
            f"/choices/{choice.finish_pos}/finish_reason",
        )
