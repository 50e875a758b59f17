"""G002 id-changed: A chunk's `id` differs from the first chunk's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import HEAD_CHANGED
from sseconform.rules.chat.state import changed
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "G002",
    "id-changed",
    Severity.WARNING,
    None,
    "A chunk's `id` differs from the first chunk's.",
    RuleDoc(
        what=(
            "A chunk's `id` differs from the first chunk's before any content, reasoning or tool "
            "delta was sent (after that, the same change is R002)."
        ),
        why=(
            "One response has one id for its whole stream; clients and logs use it to tie the "
            "chunks and the usage together. A change before the first delta usually means a "
            "failover that did not keep the id already sent."
        ),
        clients=(
            "Beyond the matrix: An accumulating client keeps one id per response, so "
            "which one it reports depends on the client; anything that joins logs or billing on "
            "the id sees two responses."
        ),
        fix=(
            'data: {"id":"c1",...,"delta":{"role":"assistant","content":""}}\n'
            "\n"
            'data: {"id":"c1",...,"delta":{"content":"Hi"}}\n'
            "\n"
        ),
    ),
)


@HEAD_CHANGED.on(RULE)
def check(c: StreamChecker, ev: Event, field: str, new: Any, first: Any, previous: Any) -> None:
    """The chunk id changes before any content (after it: R002)."""
    if field == "id" and not c.any_content:
        c.report(RULE, changed("id", new, first, previous), ev, "/id")
