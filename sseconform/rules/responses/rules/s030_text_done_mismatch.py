"""S030 text-done-mismatch: A text `.done` differs from its deltas."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import TEXT_DONE
from sseconform.rules.responses.state import done_unlike_deltas

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.rules.responses.state import Acc
    from sseconform.sse.decoder import Event

RULE = define(
    "S030",
    "text-done-mismatch",
    Severity.ERROR,
    "done-matches-deltas",
    "A text `.done` differs from its deltas.",
    RuleDoc(
        what=(
            "`response.output_text.done` (`text`), `response.refusal.done` (`refusal`), "
            "`response.reasoning_text.done` or `response.reasoning_summary_text.done` (`text`) is "
            "not the concatenation of the part's deltas (compared by hash and length). When there "
            "were no deltas, the `.done` value is taken as is."
        ),
        why=(
            "The user saw the deltas; the client stores the `.done` and the items. When they "
            "differ, what was shown is not what the conversation continues with. A dropped or "
            "doubled delta (a gateway's buffering bug) shows up here."
        ),
        clients=(
            "openai-python: streamed 'Hello, world!' from the deltas and returned 'Hello, "
            "world?' from `get_final_response()`; with a doubled delta the stream showed "
            "'Hello lo' and the final text 'Hello'."
        ),
        fix='data: {"type":"response.output_text.done","text":"Hello, world!",...}\n\n',
    ),
)


@TEXT_DONE.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str, field: str, text: str, acc: Acc) -> None:
    """A text's `.done` that is not what its deltas built."""
    said = done_unlike_deltas(kind, field, text, acc)
    if said is not None:
        c.report(RULE, said, ev, "/" + field)
