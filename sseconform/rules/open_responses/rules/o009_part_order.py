"""O009 part-order: a content part closes before its text's `.done`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.open_responses.hooks import PART_DONE, TEXT_DONE
from sseconform.rules.open_responses.spec import TEXT_PARTS

if TYPE_CHECKING:
    from sseconform.rules.open_responses.checker import OpenResponsesChecker
    from sseconform.rules.responses.state import Part
    from sseconform.sse.decoder import Event

RULE = define(
    "O009",
    "part-order",
    Severity.ERROR,
    "spec-order",
    "A content part closes before its text's `.done`, or the `.done` comes after it.",
    RuleDoc(
        what=(
            "A `response.content_part.done` for an output text, refusal or reasoning part "
            "before that part's `response.output_text.done` (`.refusal.done`, "
            "`.reasoning.done`), or that `.done` after the part's `content_part.done`. OpenAI "
            "always sends the text's `.done` first."
        ),
        why=(
            "A client that finalises the text at its `.done` and closes the part at "
            "`content_part.done` sees a part closed with its text unfinished."
        ),
        clients=(
            "Not a client's rule: the specification's. openai-python and the AI SDK take the "
            "text from the deltas and either `.done`."
        ),
        fix="Send each text's `.done` before its `content_part.done`.",
        spec=(
            "Open Responses, § Items are streamable (2): `response.content_part.added`, then "
            "deltas, then `response.<content_type>.done`, then `response.content_part.done`."
        ),
    ),
)


@PART_DONE.on(RULE)
def part_closed_early(
    c: OpenResponsesChecker, ev: Event, obj: dict[str, Any], part: Part | None
) -> None:
    """A text part closed before its text's `.done`."""
    if part is not None and part.kind in TEXT_PARTS and not part.acc.done and not part.done:
        c.report(
            RULE,
            f"content_part.done for content_index {obj.get('content_index')} of output_index "
            f"{obj.get('output_index')} before its {part.kind} `.done` event",
            ev,
        )


@TEXT_DONE.on(RULE)
def text_done_late(
    c: OpenResponsesChecker, ev: Event, obj: dict[str, Any], kind: str, part: Part | None
) -> None:
    """A text's `.done` after its part closed."""
    if part is not None and part.done:
        c.report(
            RULE,
            f"{kind} after its part's content_part.done (content_index "
            f"{obj.get('content_index')} of output_index {obj.get('output_index')})",
            ev,
        )
