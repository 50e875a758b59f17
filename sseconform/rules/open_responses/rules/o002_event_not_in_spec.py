"""O002 event-not-in-spec: An event type that is neither the specification's nor prefixed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.open_responses.hooks import EVENT
from sseconform.rules.open_responses.spec import RENAMED, core_events, is_extension

if TYPE_CHECKING:
    from sseconform.rules.open_responses.checker import OpenResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "O002",
    "event-not-in-spec",
    Severity.ERROR,
    "spec-extensions",
    "An event type that is neither the specification's nor prefixed.",
    RuleDoc(
        what=(
            "An event whose `type` is not one of the specification's 24 and has no `slug:` "
            "prefix: OpenAI's hosted-tool, MCP, audio and custom-tool events "
            "(`response.web_search_call.searching`, `response.mcp_call.in_progress`, ...), and "
            "OpenAI's names for events the specification renames "
            "(`response.reasoning_text.delta` is `response.reasoning.delta` there). Reported "
            "once per type; its references are still checked."
        ),
        why=(
            "A client written to the specification knows the core events and ignores prefixed "
            "ones; an unprefixed unknown event is neither, and the compliance suite fails the "
            "stream on it."
        ),
        clients=(
            "Not a client's rule: the specification's. openai-python and the AI SDK read "
            "OpenAI's names; a client of the specification reads raw reasoning only from "
            "`response.reasoning.delta`."
        ),
        fix=(
            "Send the specification's name (`response.reasoning.delta`), or prefix a "
            "provider's own event (`openai:web_search_call.searching`)."
        ),
        spec=(
            "Open Responses, § Extending streaming events: extension events MUST carry the "
            "implementor's slug prefix; § Streaming names the core events."
        ),
    ),
)


@EVENT.on(RULE)
def check(c: OpenResponsesChecker, ev: Event, obj: dict[str, Any], kind: str) -> None:
    """Neither a core event nor an extension: once per type."""
    if kind in core_events() or is_extension(kind) or not c.first_time("O002:" + kind):
        return
    spec = RENAMED.get(kind)
    hint = (
        f"OpenAI's name; the specification's is {spec}"
        if spec
        else "neither the specification's nor prefixed `slug:` as an extension"
    )
    c.report(RULE, f"event type {kind!r}: {hint}", ev, "/type")
