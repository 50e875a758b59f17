"""W003 crlf-framing: Lines end in CRLF instead of LF."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import anomaly
from sseconform.sse import events as kinds

RULE = define(
    "W003",
    "crlf-framing",
    Severity.WARNING,
    None,
    "Lines end in CRLF instead of LF.",
    RuleDoc(
        what=(
            "At least one line ends in CRLF; reported once per stream, at the first such line. "
            "Not in the gemini grammar, whose provider frames with CRLF itself."
        ),
        why=(
            "CRLF is legal SSE, but OpenAI frames with LF and consumers written against its "
            'output split on "\\n\\n" and never find an event boundary. Gemini frames with CRLF, '
            "so a gateway that passes its framing through inherits it."
        ),
        clients=(
            "Beyond the matrix: hand-written consumers that split on "
            '"\\n\\n" or test startsWith("data: ") break (openai-python #498; hey-api #3054).'
        ),
        example=(
            'data: {...,"delta":{"content":"Hi"}}<CR><LF>\n<CR><LF>\ndata: [DONE]<CR><LF>\n<CR><LF>'
        ),
        fix=('Frame with LF only:\ndata: {...,"delta":{"content":"Hi"}}\n\ndata: [DONE]\n\n'),
    ),
)

#: The decoder finds it; the checker base places it at the start of its event.
anomaly(RULE, kinds.CRLF, "lines end in CRLF (first here)")
