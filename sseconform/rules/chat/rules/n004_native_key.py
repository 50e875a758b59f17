"""N004 native-key: A native key or type value inside a chunk."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sseconform.rules import native
from sseconform.rules.catalog import NO_NATIVE_LEAK, Severity, define
from sseconform.rules.chat.hooks import DELTA, TOOL_DELTA, UNKNOWN_KEY
from sseconform.rules.docs import RuleDoc

if TYPE_CHECKING:
    from sseconform.rules.chat.checker import StreamChecker
    from sseconform.rules.chat.state import Choice
    from sseconform.sse.decoder import Event

RULE = define(
    "N004",
    "native-key",
    Severity.WARNING,
    NO_NATIVE_LEAK,
    "A native key or type value inside a chunk.",
    RuleDoc(
        what=(
            "Inside a chunk, a key of a native dialect (`partial_json`, `content_block`, "
            "`functionCall`, `thoughtSignature`, ...) or a delta or tool-call `type` whose value "
            "is a native type (`text_delta`, `input_json_delta`, `tool_use`, ...); reported once "
            "per key."
        ),
        why=(
            "A half-translated chunk: what the native key carries (often the arguments or the "
            "stop reason) sits where no chat-completions client looks."
        ),
        clients=(
            "Beyond the matrix: Clients that ignore unknown keys lose what the key "
            "carried, e.g. arguments under `partial_json` never reach `function.arguments`; a "
            "native tool-call `type` fails in clients that check it."
        ),
        fix=(
            "data: "
            '{...,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"city\\":"}}]}}\n'
            "\n"
        ),
    ),
)


@UNKNOWN_KEY.on(RULE)
def check(c: StreamChecker, ev: Event, key: str, value: object, pointer: str) -> None:
    """A native dialect's key in a chunk (once per key)."""
    if key in native.NATIVE_KEYS and c.first_time(f"{RULE.code}:{key}"):
        c.report(RULE, f"native key `{key}` in a chunk", ev, pointer)


@DELTA.on(RULE)
def check_delta(
    c: StreamChecker, ev: Event, pos: int, choice: Choice, delta: dict[str, Any]
) -> None:
    """A native delta type (said once)."""
    kind = delta.get("type")
    if native.is_native_type(kind) and c.first_time(f"{RULE.code}:type"):
        c.report(RULE, f"native delta type {kind!r}", ev, f"/choices/{pos}/delta/type")


@TOOL_DELTA.on(RULE)
def check_tool(c: StreamChecker, ev: Event, where: str, tc: dict[str, Any]) -> None:
    """A native tool-call type (said once)."""
    kind = tc.get("type")
    if native.is_native_type(kind) and c.first_time(f"{RULE.code}:tool-type"):
        c.report(RULE, f"native tool-call type {kind!r}", ev, f"{where}/type")
