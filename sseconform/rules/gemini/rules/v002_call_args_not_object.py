"""V002 call-args-not-object: A functionCall's args is not a JSON object."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import HOOKS
from sseconform.rules.gemini.invariants import WHOLE_CALLS
from sseconform.rules.gemini.schemas import RESPONSE
from sseconform.rules.schema import SchemaViolation
from sseconform.rules.snippets import gemini_chunk

if TYPE_CHECKING:
    pass

RULE = define(
    "V002",
    "call-args-not-object",
    Severity.ERROR,
    WHOLE_CALLS,
    "A functionCall's args is not a JSON object.",
    RuleDoc(
        what=(
            "A `functionCall`'s `args` is a string (often a fragment of the JSON text, as "
            "OpenAI streams `arguments`), an array or a number. Gemini's `args` is a "
            "`Struct`: always an object, whole."
        ),
        why=(
            "A client passes `args` to the tool as its keyword arguments; a string of JSON "
            "text is not them."
        ),
        clients=(
            "google-genai raises a validation error (`functionCall.args` must be a "
            "dictionary) and the whole stream is lost. Gemini CLI passes the string on; the "
            "tool refuses it (its parameters must be an object) and the error goes back to "
            "the model."
        ),
        fix=(
            "Parse the arguments and send them as an object:\n"
            + gemini_chunk('{"functionCall":{"name":"f","args":{"a":1}}}', "STOP")
        ),
    ),
)


@HOOKS.claims(RULE)
def claim(kind: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """A functionCall's args of another type than an object."""
    if kind == RESPONSE and v.path[-2:-1] == ("functionCall",) and v.path[-1:] == ("args",):
        return f"a functionCall's args is not an object ({v.message})"
    return None
