"""V014 error-chunk-malformed: An error chunk is not Google's error shape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.gemini.hooks import HOOKS
from sseconform.rules.gemini.invariants import ERROR_SHAPE
from sseconform.rules.gemini.schemas import ERROR
from sseconform.rules.schema import SchemaViolation

if TYPE_CHECKING:
    pass

RULE = define(
    "V014",
    "error-chunk-malformed",
    Severity.ERROR,
    ERROR_SHAPE,
    "An error chunk is not Google's error shape.",
    RuleDoc(
        what=(
            'A chunk with `error` is not `{"error": {"code": <int>, "message": <string>, '
            '"status": <string>}}`: a gateway passed another API\'s error object through '
            '(`{"error": {"type": ..., "message": ...}}`) or a bare string.'
        ),
        why=(
            "Clients read `code` and `status` to decide whether to retry; a missing one "
            "makes a retryable error final, or the reverse."
        ),
        clients=(
            "google-genai raises `APIError` with the code and status it can find; without "
            "them, an `UnknownApiResponseError`. Gemini CLI retries on 429 and 5xx codes only."
        ),
        fix=(
            "Send Google's error shape:\n"
            'data: {"error":{"code":503,"message":"The model is '
            'overloaded.","status":"UNAVAILABLE"}}\n'
            "\n"
        ),
    ),
)


@HOOKS.claims(RULE)
def claim(kind: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """Every schema violation of an error chunk."""
    if kind != ERROR:
        return None
    return f"the error chunk is not {{error: {{code, message, status}}}} ({v.message})"
