"""V003 call-id-repeated: Two functionCall parts with the same id."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import CALL
from sseconform.rules.gemini.invariants import WHOLE_CALLS
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "V003",
    "call-id-repeated",
    Severity.ERROR,
    WHOLE_CALLS,
    "Two functionCall parts with the same id.",
    RuleDoc(
        what=(
            "A `functionCall` part names its function and carries an `id` an earlier call of "
            "the stream already had: one call sent twice, or a call's arguments split over "
            "two named parts."
        ),
        why=(
            "The client runs the call twice, or pairs the second result with the first call; "
            "the next request's `functionResponse` parts answer one id twice."
        ),
        clients=(
            "google-genai and Gemini CLI merge no parts: each functionCall part is a call of "
            "its own, so both read two calls with one id and Gemini CLI runs the tool twice; "
            "Qwen Code keeps one call per id, and the second call is lost."
        ),
        fix=(
            "One part per call, each with its own id:\n"
            + gemini_chunk(
                '{"functionCall":{"id":"c1","name":"f","args":{}}},{"functionCall":{"id":"c2","name":"g","args":{}}}',
                "STOP",
            )
        ),
    ),
)


@CALL.on(RULE)
def check(
    c: GeminiChecker, ev: Event, call: dict[str, Any], part: dict[str, Any], pointer: str
) -> None:
    """Two functionCall parts with the same id."""
    call_id = call.get("id")
    if type(call_id) is str and call_id and not c.first_time(f"{RULE.code}:{call_id}"):
        c.report(RULE, f"the function call id {call_id!r} was already used", ev, pointer + "/id")
