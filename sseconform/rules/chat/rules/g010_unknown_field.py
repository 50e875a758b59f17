"""G010 unknown-field: A field OpenAI does not send (reported once per name)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.chat.hooks import UNKNOWN_KEY
from sseconform.rules.docs import RuleDoc
from sseconform.rules.native import NATIVE_KEYS, NONSTANDARD_REASONING

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "G010",
    "unknown-field",
    Severity.INFO,
    None,
    "A field OpenAI does not send (reported once per name).",
    RuleDoc(
        what=(
            "A key that OpenAI itself does not send, reported once per key path. Native keys "
            "(N004) and `reasoning`/`reasoning_details` (G012) have their own codes."
        ),
        why=(
            "Informational: it lists what a gateway or provider adds beyond OpenAI's grammar "
            "(provider extras, debugging fields), which can leak internal data or collide with "
            "fields OpenAI adds later."
        ),
        clients=(
            "Beyond the matrix: clients generally ignore keys they do not know, so "
            "nothing is expected to break."
        ),
        fix=(
            "Nothing to fix if the key is meant to be there; otherwise drop it or move it to an "
            "HTTP response header:\n"
            'data: {...,"choices":[...]}\n'
            "\n"
        ),
    ),
)


def _shape(pointer: str) -> str:
    """A pointer with array positions folded, so an unknown key is reported once per place."""
    return "/".join("*" if p.isdigit() else p for p in pointer.split("/"))


@UNKNOWN_KEY.on(RULE)
def check(c: StreamChecker, ev: Event, key: str, value: object, pointer: str) -> None:
    """A key OpenAI does not send (once per place; a native key or a nonstandard reasoning
    field has its own rule)."""
    if (
        key not in NATIVE_KEYS
        and key not in NONSTANDARD_REASONING
        and not c.over_cap(RULE)
        and c.first_time(f"{RULE.code}:{_shape(pointer)}")
    ):
        c.report(RULE, f"field `{key}` is not one OpenAI sends", ev, pointer)
