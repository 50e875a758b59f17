"""G013 chunk-field-missing: a chunk lacks `id`, `created` or `model`."""

from __future__ import annotations

from typing import Any

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import HOOKS
from sseconform.rules.docs import RuleDoc
from sseconform.rules.schema import ERROR, SchemaViolation, missing_at

#: The chunk's own fields whose absence no measured client breaks on (each measured missing
#: from every chunk: tests/cases/pass/G013-*). `object` and `choices` have rules of their own.
FIELDS = ("id", "created", "model")

RULE = define(
    "G013",
    "chunk-field-missing",
    Severity.WARNING,
    None,
    "A chunk lacks `id`, `created` or `model`.",
    RuleDoc(
        what=(
            "A chunk has no `id`, no `created` or no `model`: OpenAI's schema requires all "
            "three on every chunk. Some gateways never send `model` (or `created`) at all."
        ),
        why=(
            "Clients that log, bill or route by the model read `model` from the chunks, and a "
            "client that groups chunks by `id` cannot; the answer itself is unaffected. A "
            "warning, by measurement: a missing field is a schema violation, but no measured "
            "client's reading of the answer changes."
        ),
        clients=(
            "None broke. Measured with each field missing from every chunk: openai-python's "
            "`.stream()` accumulator, the AI SDK's openai-compatible provider and "
            "langchain-openai all read the text and the finish as sent (the AI SDK's chunk "
            "schema takes all three as optional; openai-python builds its types without "
            "validating them). A client that validates strictly against OpenAI's schema "
            "would refuse the chunk."
        ),
        fix=(
            'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1714000000,'
            '"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\n'
        ),
    ),
)


@HOOKS.claims(RULE)
def claim(name: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """A chunk's missing `id`, `created` or `model` (a wrong type stays J003's)."""
    if name == ERROR or len(v.path) != 1 or v.path[0] not in FIELDS:
        return None
    if not missing_at(obj, v.path):
        return None
    return f"no `{v.path[0]}` field on this chunk (OpenAI's schema requires it)"
