"""V008 thought-signature-missing: The first call after thinking has no thoughtSignature."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import END
from sseconform.rules.gemini.invariants import THOUGHTS_MARKED
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    from sseconform.rules.gemini.checker import GeminiChecker

RULE = define(
    "V008",
    "thought-signature-missing",
    Severity.WARNING,
    THOUGHTS_MARKED,
    "The first call after thinking has no thoughtSignature.",
    RuleDoc(
        what=(
            "The model thought (thought parts, or `thoughtsTokenCount` above 0) and then "
            "called a function, but the first `functionCall` part carries no "
            "`thoughtSignature`. Gemini signs that part; a client must send it back with the "
            "call on the next request. A translating gateway drops it, or never maps the "
            "upstream's signature (Anthropic's thinking `signature`, Responses' "
            "`encrypted_content`) into it."
        ),
        why=(
            "Gemini 3 refuses the next request whose history holds the call without its "
            "signature (HTTP 400); a gateway in front of another provider loses the "
            "reasoning state it needs on the next turn."
        ),
        clients=(
            "Both read this turn whole; the harm is on the next one (gate's conversation "
            "scenarios grade it). google-genai sends the history back as it got it: with "
            "Gemini 3 the next request is refused. Gemini CLI puts a placeholder signature "
            "on the call (one that tells the API to skip the check), so its next turn goes "
            "through without the model's reasoning."
        ),
        fix=(
            "Carry the signature on the first call's part:\n"
            + gemini_chunk(
                '{"functionCall":{"name":"f","args":{}},"thoughtSignature":"<opaque>"}', "STOP"
            )
        ),
    ),
)


@END.on(RULE)
def check(c: GeminiChecker) -> None:
    """The first call after thinking has no thoughtSignature."""
    s = c.state
    first = s.first_call
    if first is not None and not first.signed and (s.thought_parts or s.thoughts_tokens > 0):
        c.report(
            RULE,
            f"the model thought, then called {first.name!r} without a thoughtSignature",
            first.event,
            first.pointer,
        )
