"""H001 http-error-status: A non-2xx response: the body is not a stream."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import HTTP_ERROR

if TYPE_CHECKING:
    from sseconform.rules.base import Checker


RULE = define(
    "H001",
    "http-error-status",
    Severity.INFO,
    None,
    "A non-2xx response: the body is not a stream.",
    RuleDoc(
        what="The recorded response has a non-2xx status; its body is not checked as a stream.",
        why=(
            "Informational: an error known before the first byte belongs in a non-2xx response, "
            "not in an in-band frame, so this is the right shape for it; it is reported so a run "
            "over many recordings shows which carried no stream."
        ),
        clients=(
            "Not a stream shape, so not among the measured ones; clients report it through their "
            "HTTP error path, not as stream content."
        ),
        example=(
            "HTTP/1.1 429 Too Many Requests\n"
            "content-type: application/json\n"
            "\n"
            '{"error":{"message":"rate limited","type":"rate_limit_error"}}'
        ),
        fix="Nothing to fix: this is how an error known before the first byte should be sent.",
    ),
)


def message(status: int) -> str:
    """What H001 says (``inspect`` says it too)."""
    return f"HTTP {status}: an error before the stream, reported the right way"


@HTTP_ERROR.on(RULE)
def check(c: Checker, status: int) -> None:
    """A response whose status is not 2xx: its body is an error, not a stream."""
    c.report_about_file(RULE, message(status))
