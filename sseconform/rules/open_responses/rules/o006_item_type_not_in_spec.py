"""O006 item-type-not-in-spec: an item type neither the specification's nor prefixed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.open_responses.hooks import ITEM
from sseconform.rules.open_responses.spec import is_extension

if TYPE_CHECKING:
    from sseconform.rules.open_responses.checker import OpenResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "O006",
    "item-type-not-in-spec",
    Severity.ERROR,
    "spec-extensions",
    "An output item type that is neither the specification's nor prefixed.",
    RuleDoc(
        what=(
            "An `output_item.added` or `.done` whose item `type` is not `message`, "
            "`function_call`, `function_call_output`, `reasoning` or `compaction` and has no "
            "`slug:` prefix: OpenAI's `web_search_call`, `file_search_call`, `mcp_call` and "
            "the other hosted-tool items. Reported once per type."
        ),
        why=(
            "A client of the specification keeps unknown prefixed items as opaque records; an "
            "unprefixed unknown type claims to be the specification's and is not."
        ),
        clients=(
            "Not a client's rule: the specification's. The AI SDK and Codex CLI read OpenAI's "
            "hosted-tool items by their OpenAI names."
        ),
        fix="Prefix the provider's item type: `openai:web_search_call`.",
        spec=(
            "Open Responses, § Items are extensible and § Extending Items: item types outside "
            "the specification MUST carry the implementor's slug prefix."
        ),
    ),
)


@ITEM.on(RULE)
def check(c: OpenResponsesChecker, ev: Event, item: dict[str, Any], kind: str) -> None:
    """An item type neither the specification's nor an extension: once per type."""
    if not is_extension(kind) and c.first_time("O006:" + kind):
        c.report(
            RULE,
            f"item type {kind!r} is neither the specification's nor prefixed `slug:`",
            ev,
            "/item/type",
        )
