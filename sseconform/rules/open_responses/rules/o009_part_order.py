"""O009 part-order: a content part closes before its text's `.done`."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

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
        example=(
            "data: "
            '{"type":"response.content_part.done","item_id":"msg_1","output_index":0,'
            '"content_index":0,"part":{...},"sequence_number":6}\n\ndata: '
            '{"type":"response.output_text.done","item_id":"msg_1","output_index":0,"content_index":0,"text":"Hi","sequence_number":7}\n\n'
        ),
        fix="Send each text's `.done` before its `content_part.done`.",
        spec=(
            "Open Responses, § Items are streamable (2): `response.content_part.added`, then "
            "deltas, then `response.<content_type>.done`, then `response.content_part.done`."
        ),
    ),
)
