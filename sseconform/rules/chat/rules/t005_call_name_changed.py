"""T005 call-name-changed: A later delta of a call carries another name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import TOOL_CALL_HEAD, Severity, define
from sseconform.rules.chat.hooks import CALL_CHANGED
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Call
    from sseconform.sse.decoder import Event

RULE = define(
    "T005",
    "call-name-changed",
    Severity.ERROR,
    TOOL_CALL_HEAD,
    "A later delta of a call carries another name.",
    RuleDoc(
        what="A later delta of a call carries a `function.name` different from the call's name.",
        why=(
            "The name is fixed by the first delta and is never sent in fragments; a different "
            "name later means name pieces are streamed, or fragments of two calls were mixed."
        ),
        clients=(
            "Beyond the matrix: langchain-openai concatenates a repeated name "
            "(measured), so a changed one yields a name no function has."
        ),
        fix=(
            "Send the whole name once, in the first delta:\n"
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"n'
            'ame":"get_weather","arguments":""}}]}}\n'
            "\n"
        ),
    ),
)


@CALL_CHANGED.on(RULE)
def check(c: StreamChecker, ev: Event, where: str, call: Call, field: str, value: str) -> None:
    """A call's name changes on a later delta."""
    if field == "name":
        c.report(
            RULE,
            f"call {call.index}'s name changes {call.name!r} -> {value!r}",
            ev,
            f"{where}/function/name",
        )
