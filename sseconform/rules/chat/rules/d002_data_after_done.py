"""D002 data-after-done: Events follow `data: [DONE]`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import AFTER_DONE
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "D002",
    "data-after-done",
    Severity.WARNING,
    None,
    "Events follow `data: [DONE]`.",
    RuleDoc(
        what=(
            "A frame arrives after `data: [DONE]`; reported once, at the first one. Comments "
            "after `[DONE]` are fine."
        ),
        why=(
            "`[DONE]` promises that nothing follows. Whatever comes after it (often a late usage "
            "chunk or an error) is lost to clients that stop there."
        ),
        clients=(
            "Beyond the matrix: A client that stops at `[DONE]` never sees the later "
            "frames; one that reads to the end of the body handles them after it has reported the "
            "response complete."
        ),
        fix=('data: {...,"choices":[],"usage":{...}}\n\ndata: [DONE]\n\n'),
    ),
)


@AFTER_DONE.on(RULE)
def check(c: StreamChecker, ev: Event) -> None:
    """An event after `data: [DONE]` (said once)."""
    c.report(RULE, "an event after `data: [DONE]`", ev)
