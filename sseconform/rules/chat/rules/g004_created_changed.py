"""G004 created-changed: A chunk's `created` differs from the first chunk's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import HEAD_CHANGED
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "G004",
    "created-changed",
    Severity.WARNING,
    None,
    "A chunk's `created` differs from the first chunk's.",
    RuleDoc(
        what="A chunk's `created` differs from the first chunk's.",
        why=(
            "`created` is the response's creation time, one value for the whole stream. A gateway "
            "that stamps each chunk with the current time, or splices two upstream calls, changes "
            "it."
        ),
        clients=(
            "No client is known to depend on it; it is a "
            "warning because it reveals per-chunk stamping or a spliced stream."
        ),
        fix=(
            "Take `created` once, when the stream starts:\n"
            'data: {...,"created":1714000000,"delta":{"content":"Hi"}}\n'
            "\n"
            'data: {...,"created":1714000000,"delta":{"content":" there"}}\n'
            "\n"
        ),
    ),
)


@HEAD_CHANGED.on(RULE)
def check(c: StreamChecker, ev: Event, field: str, new: Any, first: Any, previous: Any) -> None:
    """`created` differs from the first chunk's (said once)."""
    if field == "created" and c.first_time(RULE.code):
        c.report(RULE, f"created {new!r}, first chunk had {previous!r}", ev, "/created")
