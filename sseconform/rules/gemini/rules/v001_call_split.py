"""V001 call-split: A functionCall part without a name that continues no streamed call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import NAMELESS_CALL
from sseconform.rules.gemini.invariants import WHOLE_CALLS
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V001",
    "call-split",
    Severity.ERROR,
    WHOLE_CALLS,
    "A functionCall part without a name that continues no streamed call.",
    RuleDoc(
        what=(
            "A `functionCall` part has no `name`, and no call streamed in pieces is open "
            "before it (Vertex AI streams a call's arguments in `partialArgs` pieces after a "
            "part that names the call and says `willContinue: true`). A translating gateway "
            "that turns each OpenAI argument fragment into its own part sends this: the "
            "call's arguments split over parts."
        ),
        why=(
            "Gemini clients read every `functionCall` part as one whole call: the "
            "continuation is a second call with no name, and the first call has only part of "
            "its arguments."
        ),
        clients=(
            "google-genai reads two calls: the first with part of its arguments, the second "
            "with name None. Gemini CLI runs the first with part of its arguments and "
            'answers the second `Tool "generic_tool" not found`.'
        ),
        fix=(
            "Send the call whole, its arguments one object, in one part:\n"
            + gemini_chunk(
                '{"functionCall":{"name":"get_weather","args":{"city":"Paris","unit":"c"}}}', "STOP"
            )
        ),
    ),
)


@NAMELESS_CALL.on(RULE)
def check(c: GeminiChecker, ev: Event, call: dict[str, Any], pointer: str) -> None:
    """A functionCall part without a name that continues no streamed call."""
    c.report(
        RULE, "a functionCall part without a name: the rest of a call split over parts", ev, pointer
    )
