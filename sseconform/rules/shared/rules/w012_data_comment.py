"""W012 data-comment: A keep-alive sent as data (`data: : ping`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import KEEPALIVE_DATA

if TYPE_CHECKING:
    from sseconform.rules.base import Checker
    from sseconform.sse.decoder import Event


RULE = define(
    "W012",
    "data-comment",
    Severity.ERROR,
    None,
    "A keep-alive sent as data (`data: : ping`).",
    RuleDoc(
        what=(
            "A frame whose data starts with `:`, such as `data: : ping`: a keep-alive sent as "
            "data instead of as a comment. It is not also reported as J001."
        ),
        why=(
            "Clients receive it as an event and try to read it as a chunk; keep-alives must be "
            "comment lines, which every parser skips. Several gateways have shipped this bug."
        ),
        clients=(
            "Beyond the matrix: "
            "A spec-following parser dispatches `: ping` as event data, and any client that "
            "parses each event as JSON fails on it."
        ),
        example=('data: : ping\n\ndata: {...,"delta":{"content":"Hi"}}\n\n'),
        fix=(': ping\n\ndata: {...,"delta":{"content":"Hi"}}\n\n'),
    ),
)


@KEEPALIVE_DATA.on(RULE)
def check(c: Checker, ev: Event) -> None:
    """Data that starts with a colon: a keep-alive comment sent as data."""
    c.report(RULE, f"a keep-alive sent as data: {ev.data[:30]!r}", ev)
