"""D001 done-missing: The stream does not end with `data: [DONE]`."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "D001",
    "done-missing",
    Severity.WARNING,
    None,
    "The stream does not end with `data: [DONE]`.",
    RuleDoc(
        what=(
            "No `data: [DONE]` frame at all. When the stream also has no finish chunk and no "
            "error frame, E003 is reported instead; after an error frame, E002 is."
        ),
        why=(
            "`[DONE]` is how OpenAI ends a stream; without it a consumer can only tell a complete "
            "stream from a cut connection by the finish chunk."
        ),
        clients=(
            "It is still part of OpenAI's grammar, and "
            "consumers that take `[DONE]` as proof of a complete answer report a failure."
        ),
        fix=('data: {...,"delta":{},"finish_reason":"stop"}\n\ndata: [DONE]\n\n'),
    ),
)
