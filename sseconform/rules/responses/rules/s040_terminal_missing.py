"""S040 terminal-missing: The stream ends without a terminal event."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "S040",
    "terminal-missing",
    Severity.ERROR,
    "one-terminal-event",
    "The stream ends without a terminal event.",
    RuleDoc(
        what=(
            "The body ends with no `response.completed`, `response.incomplete` or "
            "`response.failed`, and no `error` event: the stream was cut."
        ),
        why=(
            "The terminal event is the only way a client knows the response is whole; without it, "
            "a cut connection looks like a short answer."
        ),
        clients=(
            "openai-python: `get_final_response()` raises RuntimeError (\"Didn't receive a "
            '`response.completed` event.") after the streamed text. Codex CLI treats a stream '
            "closed before `response.completed` as an error and retries the turn (its own "
            "tests cover this; not measured here)."
        ),
        fix='data: {"type":"response.completed","response":{"status":"completed",...}}\n\n',
    ),
)
