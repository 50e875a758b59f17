"""A023 event-name-hides-data: An `event: ping` or `event: error` name on another type's data."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.anthropic.hooks import EVENT_NAME
from sseconform.rules.anthropic.invariants import EVENT_NAME_MATCHES_TYPE
from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.anthropic.checker import AnthropicChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "A023",
    "event-name-hides-data",
    Severity.ERROR,
    EVENT_NAME_MATCHES_TYPE,
    "An `event: ping` or `event: error` name on another type's data.",
    RuleDoc(
        what="An event named `ping` or `error` whose data is another type.",
        why=(
            "The SDKs act on these two names before reading the data: a `ping` is "
            "skipped, an `error` raises."
        ),
        clients=(
            "A text delta named `ping`: anthropic-python, @anthropic-ai/sdk and Claude Code "
            "lose the text; @ai-sdk/anthropic reads it. Named `error`: the SDKs raise an "
            "APIError carrying the data."
        ),
        fix=(
            "event: content_block_delta\n"
            'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_de'
            'lta","text":"Hi"}}\n'
            "\n"
        ),
    ),
)


@EVENT_NAME.on(RULE)
def check(c: AnthropicChecker, ev: Event, name: str | None, kind: str) -> None:
    """`event: ping` or `event: error` over other data: clients act on the name."""
    if name in ("ping", "error"):
        c.report(
            RULE,
            f"`event: {name}` on a {kind} payload: clients act on the name "
            f"({'skip the event' if name == 'ping' else 'raise an error'})",
            ev,
        )
