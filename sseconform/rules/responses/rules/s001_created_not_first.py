"""S001 created-not-first: The first event is not `response.created`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import FIRST

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S001",
    "created-not-first",
    Severity.ERROR,
    "created-first",
    "The first event is not `response.created`.",
    RuleDoc(
        what=(
            "The first event with a `type` is anything but `response.created` (an `error` event "
            "first is allowed: an upstream may fail before creating the response; so is "
            "`response.queued`, with which a background response may open, before "
            "`response.created` or instead of it)."
        ),
        why=(
            "`response.created` carries the response id and the snapshot clients build on; OpenAI "
            "always sends it first, then `response.in_progress`."
        ),
        clients=(
            'openai-python: `responses.stream()` raises RuntimeError ("Expected to have '
            'received `response.created` before `response.in_progress`") at the first event; '
            "iterating `responses.create(stream=True)` is unaffected."
        ),
        fix=(
            "event: response.created\ndata: "
            '{"type":"response.created","sequence_number":0,"response":{...}}\n\nevent: '
            "response.in_progress\ndata: "
            '{"type":"response.in_progress","sequence_number":1,"response":{...}}\n\n'
        ),
    ),
)


@FIRST.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str) -> None:
    """The first typed event opens the response (background mode may queue it first)."""
    if not c.resumed and kind not in ("response.created", "response.queued", "error"):
        c.report(RULE, f"the first event is {kind}, not response.created", ev, "/type")
