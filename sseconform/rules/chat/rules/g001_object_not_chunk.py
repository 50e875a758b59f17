"""G001 object-not-chunk: `object` is not `chat.completion.chunk`."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "G001",
    "object-not-chunk",
    Severity.ERROR,
    None,
    "`object` is not `chat.completion.chunk`.",
    RuleDoc(
        what=(
            "A chunk's `object` is not `chat.completion.chunk`: missing, empty, or another value "
            "such as `chat.completion.done`."
        ),
        why=(
            "Typed clients use `object` to tell chunks from other payloads. It happens in "
            "practice: Azure's first chunk has `object: \"\"`, Perplexity's last chunk "
            "`chat.completion.done`."
        ),
        clients=(
            "ERR in the openai-python `.stream()` accumulator: it drops every such chunk, then "
            "fails with an AssertionError. No other measured client broke on it."
        ),
        fix=(
            "data: "
            '{"id":"c1","object":"chat.completion.chunk",...,"choices":[{"index":0,"delta":{"conte'
            'nt":"Hi"}}]}\n'
            "\n"
        ),
    ),
)
