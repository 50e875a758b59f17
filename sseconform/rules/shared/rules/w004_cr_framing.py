"""W004 cr-framing: Lines end in a bare CR."""

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import anomaly
from sseconform.sse import events as kinds

RULE = define(
    "W004",
    "cr-framing",
    Severity.WARNING,
    None,
    "Lines end in a bare CR.",
    RuleDoc(
        what="At least one line ends in a bare CR (no LF after it); reported once per stream.",
        why=(
            "Legal SSE but rare: any reader that splits lines on LF sees the whole stream as one "
            "line."
        ),
        clients=(
            "Beyond the matrix: a "
            'spec-following parser accepts it; hand-written consumers that split on "\\n" never '
            "see a line end, so never see an event."
        ),
        example='data: {...,"delta":{"content":"Hi"}}<CR><CR>data: [DONE]<CR><CR>',
        fix=('Frame with LF only:\ndata: {...,"delta":{"content":"Hi"}}\n\ndata: [DONE]\n\n'),
    ),
)

#: The decoder finds it; the checker base places it at the start of its event.
anomaly(RULE, kinds.CR, "lines end in a bare CR (first here)")
