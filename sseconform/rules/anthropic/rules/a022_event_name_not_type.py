"""A022 event-name-not-type: The `event:` name differs from the data's `type`."""

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
    "A022",
    "event-name-not-type",
    Severity.WARNING,
    EVENT_NAME_MATCHES_TYPE,
    "The `event:` name differs from the data's `type`.",
    RuleDoc(
        what=(
            "An event whose `event:` line names another type than its data's "
            "`type` (reported once per pair; the names `ping` and `error` are A023)."
        ),
        why=(
            "Anthropic names every event after its type. The SDKs and the AI SDK "
            "read the type from the data, so a wrong name is only confusing, "
            "unless the name is one clients act on."
        ),
        clients=(
            "anthropic-python, @anthropic-ai/sdk, @ai-sdk/anthropic and Claude Code read the "
            "data (measured with `event: content_block_delta` on a content_block_start, and "
            "`event: message` on a delta)."
        ),
        fix=('event: content_block_start\ndata: {"type":"content_block_start","index":0,...}\n\n'),
    ),
)


@EVENT_NAME.on(RULE)
def check(c: AnthropicChecker, ev: Event, name: str | None, kind: str) -> None:
    """An `event:` line naming another Messages event than the data's (once per pair)."""
    if (
        name is not None
        and name not in ("ping", "error")
        and c.first_time(f"{RULE.code}:{name}:{kind}")
    ):
        c.report(RULE, f"`event: {name}` on a {kind} payload", ev)
