"""E002 error-not-followed-by-done: No `[DONE]` right after an error."""

from sseconform.rules.catalog import ERROR_THEN_DONE, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "E002",
    "error-not-followed-by-done",
    Severity.WARNING,
    ERROR_THEN_DONE,
    "No `[DONE]` right after an error.",
    RuleDoc(
        what=(
            "The frame after an error frame is not `[DONE]`, or the stream ends after the error "
            "frame without `[DONE]`."
        ),
        why=(
            "An error ends the stream: the error frame, then `[DONE]`, nothing else. Chunks after "
            "it mean the gateway retried or failed over mid-stream; a missing `[DONE]` is Groq's "
            "shape (`event: error`, then nothing)."
        ),
        clients=(
            "Beyond the matrix: a client that stops at the error loses them, one that "
            "does not appends them to an answer it was told had failed."
        ),
        fix=('data: {"error":{"message":"overloaded","type":"server_error"}}\n\ndata: [DONE]\n\n'),
    ),
)
