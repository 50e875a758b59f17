"""V007 thought-as-text: Reasoning sent as answer text, not as a thought part."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import PART_KEYS, TEXT, TEXT_RUN
from sseconform.rules.gemini.invariants import THOUGHTS_MARKED
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.catalog import Rule
    from sseconform.rules.gemini.checker import GeminiChecker
    from sseconform.rules.lane import Run
    from sseconform.sse.decoder import Event

RULE = define(
    "V007",
    "thought-as-text",
    Severity.ERROR,
    THOUGHTS_MARKED,
    "Reasoning sent as answer text, not as a thought part.",
    RuleDoc(
        what=(
            "A text part that is not marked `thought: true` holds reasoning: it opens with a "
            "`<think>` or `<thinking>` tag, or the part carries another API's reasoning "
            "field (`reasoning_content`, `reasoning`, `thinking`, `reasoning_details`). "
            "Gemini marks each thought part with `thought: true`."
        ),
        why=(
            "The client shows the reasoning to the user as the answer, and sends it back as "
            "the model's words on the next turn."
        ),
        clients=(
            "google-genai and Gemini CLI read the tags literally: the reasoning is shown and "
            "kept as the answer. A reasoning field in a part is dropped by both."
        ),
        fix=(
            "Send reasoning as thought parts:\n"
            + gemini_chunk('{"text":"Let me think.","thought":true}')
            + gemini_chunk('{"text":"The answer."}', "STOP")
        ),
    ),
)


#: How reasoning text opens when a gateway passes it through as text.
THINK_TAGS = ("<think>", "<thinking>")
#: "<" in a JSON string literal: itself, or its one escape (either case of its hex digits)
_LESS_THAN = (b"<", b"\\u003c", b"\\u003C")
#: Other APIs' reasoning fields, found in a Gemini part.
REASONING_KEYS = ("reasoning_content", "reasoning", "thinking", "reasoning_details")


@TEXT.on(RULE)
def check(c: GeminiChecker, ev: Event, text: str, thought: bool, pointer: str) -> None:
    """Reasoning tags opening a text part that is not a thought."""
    if not thought and text.lstrip().startswith(THINK_TAGS) and c.first_time(RULE.code):
        c.report(RULE, "a text part that is not a thought opens with a reasoning tag", ev, pointer)


@PART_KEYS.on(RULE)
def check_keys(c: GeminiChecker, ev: Event, part: dict[str, Any], pointer: str) -> None:
    """Another API's reasoning field in a part."""
    for key in REASONING_KEYS:
        if key in part and c.first_time(f"{RULE.code}:{key}"):
            c.report(
                RULE,
                f"a part carries {key!r}, which no Gemini client reads",
                ev,
                f"{pointer}/{key}",
            )


@TEXT_RUN.on(RULE)
def check_run(c: GeminiChecker, run: Run, thought: bool, veto: list[Rule]) -> None:
    """A run of text chunks one of which opens with a reasoning tag."""
    raw = run.raw() if run.literals else None
    if thought or (raw is not None and not any(lt in raw for lt in _LESS_THAN)):
        return  # no text holds a tag's "<", raw or escaped: nothing to read one by one
    if any(t.lstrip().startswith(THINK_TAGS) for t in run.texts()):
        veto.append(RULE)
