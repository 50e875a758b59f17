"""I006 arguments-moved: A call's arguments continue under another index."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import STABLE_INDEX, Severity, define
from sseconform.rules.chat.hooks import CALL_CONTINUED
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Call
    from sseconform.sse.decoder import Event

RULE = define(
    "I006",
    "arguments-moved",
    Severity.ERROR,
    STABLE_INDEX,
    "A call's arguments continue under another index.",
    RuleDoc(
        what=(
            "A tool-call delta arrives under a new index with no id and no name, while the call "
            "before it is still open (its arguments so far are not yet a whole JSON value): the "
            "fragment continues that call, under another index. The fragment is kept on the open "
            "call, so what follows from the move (a nameless call without an id, two halves of "
            "JSON that do not parse) is not reported again."
        ),
        why=(
            "Clients key a call's fragments by index. A moved index makes them start a second "
            "call with no id and no name and cut the first call's arguments in two: neither half "
            "parses, and the tool cannot be called."
        ),
        clients=(
            "Clients read two calls (one without a name, both with arguments that do not parse) "
            "or raise; only clients that key by id instead of index (none of the OpenAI SDKs) "
            "read it right."
        ),
        fix=(
            "Keep one index per call for the whole call: map each upstream block or call id to "
            "the index it was given at its first delta.\n"
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\\"Paris\\"}"}}]}}\n'
            "\n"
        ),
    ),
)


@CALL_CONTINUED.on(RULE)
def check(c: StreamChecker, ev: Event, where: str, idx: int, moved: Call) -> None:
    """A call's arguments continue under a new index, with no head."""
    c.report(
        RULE,
        f"call {moved.index}'s arguments continue under index {idx} (no id, no "
        "name): the index moved mid-call",
        ev,
        f"{where}/index",
    )
