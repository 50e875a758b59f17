"""W001 invalid-utf8: The body is not valid UTF-8."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import anomaly
from sseconform.sse import events as kinds

RULE = define(
    "W001",
    "invalid-utf8",
    Severity.ERROR,
    None,
    "The body is not valid UTF-8.",
    RuleDoc(
        what=(
            "The body holds a byte sequence that is not valid UTF-8; reported once per line where "
            "it occurs."
        ),
        why=(
            "An SSE body is UTF-8 by definition. Invalid bytes come from a gateway that decodes "
            "each upstream read on its own (cutting a multi-byte character in two) or passes "
            "through text in another charset: what the user reads is corrupted."
        ),
        clients=(
            "Beyond the matrix: A spec-following parser decodes the body as UTF-8 and "
            "turns every invalid sequence into U+FFFD, so text or tool arguments are silently "
            "altered; a decoder in strict mode raises instead."
        ),
        example=(
            'data: {...,"delta":{"content":"caf<0xE9>"}}\n\n(<0xE9> is a Latin-1 byte, not UTF-8)'
        ),
        fix=(
            "Decode upstream bytes incrementally, never per read, and send UTF-8:\n"
            'data: {...,"delta":{"content":"caf\\u00e9"}}\n'
            "\n"
        ),
    ),
)

#: The decoder finds it; the checker base places it at the start of its event.
anomaly(RULE, kinds.INVALID_UTF8, "bytes that are not UTF-8 ({})")
