"""O003 event-field-mismatch: The SSE `event:` field is missing or is not the data's type."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "O003",
    "event-field-mismatch",
    Severity.ERROR,
    "spec-framing",
    "The SSE `event:` field is missing or is not the data's type.",
    RuleDoc(
        what=(
            "An event without an `event:` line (reported once), or whose `event:` is not its "
            "JSON `type`. The responses grammar's S070/S071 say the same for OpenAI's streams; "
            "here the specification makes it a MUST."
        ),
        why=(
            "Clients of the specification may dispatch on the SSE event name without parsing "
            "the data first."
        ),
        clients=(
            "Not a client's rule: the specification's. openai-python and the AI SDK read the "
            "JSON `type` and ignore the `event:` line."
        ),
        example=(
            "data: "
            '{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi","sequence_number":4}\n\n'
        ),
        fix=(
            'event: response.output_text.delta\ndata: {"type":"response.output_text.delta",...}\n\n'
        ),
        spec=(
            "Open Responses, § HTTP Responses (Streaming HTTP Responses): the `event` field "
            "MUST match the `type` in the event body."
        ),
    ),
)
