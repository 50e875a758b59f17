"""N004 native-key: A native key or type value inside a chunk."""

from sseconform.rules.catalog import NO_NATIVE_LEAK, Severity, define
from sseconform.rules.docs import RuleDoc

RULE = define(
    "N004",
    "native-key",
    Severity.WARNING,
    NO_NATIVE_LEAK,
    "A native key or type value inside a chunk.",
    RuleDoc(
        what=(
            "Inside a chunk, a key of a native dialect (`partial_json`, `content_block`, "
            "`functionCall`, `thoughtSignature`, ...) or a delta or tool-call `type` whose value "
            "is a native type (`text_delta`, `input_json_delta`, `tool_use`, ...); reported once "
            "per key."
        ),
        why=(
            "A half-translated chunk: what the native key carries (often the arguments or the "
            "stop reason) sits where no chat-completions client looks."
        ),
        clients=(
            "Beyond the matrix: Clients that ignore unknown keys lose what the key "
            "carried, e.g. arguments under `partial_json` never reach `function.arguments`; a "
            "native tool-call `type` fails in clients that check it."
        ),
        fix=(
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]}}\n'
            "\n"
        ),
    ),
)
