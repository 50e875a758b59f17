"""O001 spec-event-schema: An event does not match the specification's schema for it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.open_responses.hooks import EVENT
from sseconform.rules.open_responses.spec import core_events, report_violations

if TYPE_CHECKING:
    from sseconform.rules.open_responses.checker import OpenResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "O001",
    "spec-event-schema",
    Severity.ERROR,
    "spec-schema",
    "An event does not match the specification's schema for it.",
    RuleDoc(
        what=(
            "One of the specification's 24 core events (`response.created` ... "
            "`response.completed`, the item, part, text, refusal, reasoning, summary, "
            "arguments and annotation events) is validated against the schema written from the "
            "specification: every required field present and typed, and the `response` "
            "resource on each state-machine event whole (`completed_at`, "
            "`previous_response_id`, `instructions`, `tools`, `truncation`, `text`, `top_p`, "
            "`store`, `background`, `service_tier`, `metadata`, `safety_identifier`, "
            "`prompt_cache_key` and the rest). Items are checked by their `type`: "
            "`function_call` needs `id` and `status`, which OpenAI leaves optional."
        ),
        why=(
            "The specification's clients are generated from its schemas: a field it requires "
            "may be read without a check. A stream OpenAI itself sends fails here where "
            "OpenAI's resource lacks the spec's fields."
        ),
        clients=(
            "Not a client's rule: the specification's (its compliance suite fails the stream "
            "on any such event). The OpenAI SDKs and the AI SDK read OpenAI's shapes and do "
            "not need the extra fields."
        ),
        fix=(
            "Send every field the specification's resource and event schemas require (zero "
            "values where nothing is known)."
        ),
        spec=(
            "Open Responses 2026-04-24, § Streaming and its OpenAPI event schemas (the 24 "
            "`text/event-stream` events); the compliance suite's `streamingSchema` check."
        ),
    ),
)


@EVENT.on(RULE)
def check(c: OpenResponsesChecker, ev: Event, obj: dict[str, Any], kind: str) -> None:
    """A core event (the error event is O004's) against its schema."""
    if kind != "error" and kind in core_events():
        report_violations(c, RULE, ev, obj, kind)
