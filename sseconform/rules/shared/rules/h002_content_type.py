"""H002 content-type: A 2xx response that is not `text/event-stream`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import CONTENT_TYPE

if TYPE_CHECKING:
    from sseconform.rules.base import Checker


RULE = define(
    "H002",
    "content-type",
    Severity.ERROR,
    None,
    "A 2xx response that is not `text/event-stream`.",
    RuleDoc(
        what="The response status is 2xx but its Content-Type is not `text/event-stream`.",
        why=(
            "Clients pick their parser from the media type; an SSE body labelled "
            "`application/json` or `text/plain` is refused or read as one document."
        ),
        clients=(
            "httpx-sse raises an error when the media type is not `text/event-stream`, so clients "
            "built on it never read the stream."
        ),
        example=(
            "HTTP/1.1 200 OK\n"
            "content-type: application/json\n"
            "\n"
            'data: {...,"delta":{"role":"assistant","content":""}}\n'
            "\n"
        ),
        fix=(
            "HTTP/1.1 200 OK\n"
            "content-type: text/event-stream\n"
            "\n"
            'data: {...,"delta":{"role":"assistant","content":""}}\n'
            "\n"
        ),
    ),
)


@CONTENT_TYPE.on(RULE)
def check(c: Checker, content_type: str) -> None:
    """A 2xx response whose Content-Type is not text/event-stream."""
    c.report_about_file(RULE, f"Content-Type {content_type or '(none)'!r}, not text/event-stream")
