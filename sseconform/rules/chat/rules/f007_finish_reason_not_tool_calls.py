"""F007 finish-reason-not-tool-calls: Calls made, not `tool_calls`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import FINAL_EMPTY_DELTA, Severity, define
from sseconform.rules.chat.hooks import FINISH
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Choice
    from sseconform.sse.decoder import Event

RULE = define(
    "F007",
    "finish-reason-not-tool-calls",
    Severity.ERROR,
    FINAL_EMPTY_DELTA,
    "Calls made, not `tool_calls`.",
    RuleDoc(
        what="Tool calls were made in the choice but its finish_reason is `stop`.",
        why=(
            'Clients use `finish_reason == "tool_calls"` to decide whether to run the calls. '
            "Gemini reports STOP even when it called functions, so a literal mapping gets this "
            "wrong. OpenAI itself finishes with `stop` when the request forced a named function "
            '(`tool_choice: {"type": "function", ...}`): a recording that holds such a request '
            "is not flagged."
        ),
        clients=(
            "Beyond the matrix: Agent loops that check the finish reason before "
            "running tools skip the calls and end the turn; clients that look at the accumulated "
            "calls instead are unaffected."
        ),
        fix=(
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"id":"call_1",...,"function":{"name":"f","argu'
            'ments":"{}"}}]}}\n'
            "\n"
            'data: {...,"delta":{},"finish_reason":"tool_calls"}\n'
            "\n"
        ),
    ),
)


@FINISH.on(RULE)
def check(c: StreamChecker, ev: Event, pos: int, choice: Choice, delta: Any, fr: Any) -> None:
    """finish_reason stop on a choice that made calls: an error where the request is known
    and did not force a named function (OpenAI's own streams then finish with stop), a
    warning where no request says (a bare capture of OpenAI's own answer may be one)."""
    if c.settings.forced_function:
        return
    if fr == "stop" and (choice.calls or choice.untracked_calls):
        said = f"{len(choice.calls)} call(s) made but finish_reason is 'stop'"
        if c.settings.forced_function is None:  # no request: it decides, and is not known
            c.report(
                RULE,
                f"{said}: an error unless the request forced a named function (OpenAI then "
                "finishes with stop); give the request (a recording that holds it, or "
                "`check --request FILE`) to decide",
                ev,
                f"/choices/{pos}/finish_reason",
                severity=Severity.WARNING,
            )
            return
        c.report(RULE, said, ev, f"/choices/{pos}/finish_reason")
