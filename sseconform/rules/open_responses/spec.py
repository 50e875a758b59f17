"""What the Open Responses specification names: its 24 core events (from the schema written
from it), its item types, its renamings of OpenAI's events, and the ``slug:`` extension form.
Shared by the checker and the rules' checks."""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rule modules import this while the catalog is being built: types only
    from sseconform.rules.base import Checker
    from sseconform.rules.catalog import Rule
    from sseconform.sse.decoder import Event

__all__ = [
    "CORE_ITEMS",
    "RENAMED",
    "SCHEMA",
    "TEXT_PARTS",
    "core_events",
    "is_extension",
    "report_violations",
]

SCHEMA = "open-responses/events"
#: The spec's item types; any other must carry an implementor's ``slug:`` prefix.
CORE_ITEMS = frozenset(
    {"message", "function_call", "function_call_output", "reasoning", "compaction"}
)
#: OpenAI's names for events the spec names otherwise.
RENAMED = {
    "response.reasoning_text.delta": "response.reasoning.delta",
    "response.reasoning_text.done": "response.reasoning.done",
}
#: An extension's type: ``slug:type`` (``acme:trace_event``).
EXTENSION = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*:\S+")
#: Content parts whose text ends with its own ``.done`` before ``content_part.done``.
TEXT_PARTS = frozenset({"output_text", "refusal", "reasoning_text"})


@cache
def core_events() -> frozenset[str]:
    """The 24 event types the specification defines (read once, when first asked)."""
    from sseconform.rules.schema import load_schema

    defs = load_schema(SCHEMA)["$defs"]
    return frozenset(k.removeprefix("event:") for k in defs if k.startswith("event:"))


def is_extension(kind: str) -> bool:
    return EXTENSION.fullmatch(kind) is not None


def report_violations(
    checker: Checker, rule: Rule, ev: Event, obj: dict[str, Any], kind: str
) -> None:
    """Each way ``obj`` breaks the specification's schema for ``kind``, as ``rule``."""
    from sseconform.rules.schema import error_path, pointer_of, spec_validator

    validator = spec_validator(SCHEMA, "event:" + kind)
    if validator.is_valid(obj):
        return
    try:
        errors = list(validator.iter_errors(obj))
    except (ValueError, RecursionError) as exc:
        checker.report(rule, f"{kind}: nested too deeply to validate ({exc})", ev)
        return
    for err in errors:
        checker.report(rule, f"{kind}: {err.message}", ev, pointer_of(error_path(err)))
