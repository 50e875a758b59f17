"""J001 invalid-json: An event's data is not valid JSON (and not `[DONE]`)."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "J001",
    "invalid-json",
    Severity.ERROR,
    None,
    "An event's data is not valid JSON (and not `[DONE]`).",
    RuleDoc(
        what=(
            "An event's data is not valid JSON, is not `[DONE]` and does not start with `:` (that "
            "is W012)."
        ),
        why=(
            "Every chat frame must be a JSON object; one that does not parse is lost to every "
            "client, or ends the stream with an exception."
        ),
        clients=(
            "Beyond the matrix: openai-python parses each event as JSON, so it raises "
            "JSONDecodeError, as it does for empty events (openai-python #2722); a client that "
            "skips bad frames loses their content."
        ),
        fix=(
            "Send one complete JSON object per event:\n"
            'data: {"id":"c1",...,"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n'
            "\n"
        ),
    ),
)
