"""E001 error-message-not-string: An error without string message."""

from __future__ import annotations

from typing import Any

from sseconform.rules.catalog import ERROR_THEN_DONE, Severity, define
from sseconform.rules.chat.hooks import HOOKS
from sseconform.rules.docs import RuleDoc
from sseconform.rules.schema import ERROR, SchemaViolation

RULE = define(
    "E001",
    "error-message-not-string",
    Severity.ERROR,
    ERROR_THEN_DONE,
    "An error without string message.",
    RuleDoc(
        what=(
            "An error frame (an object with `error` and no `choices`) whose `error` is not an "
            "object, or whose `error.message` is missing or not a string."
        ),
        why=(
            'After HTTP 200, an upstream failure is reported as `data: {"error":{"message": '
            "<string>, ...}}`; clients build their exception from that message."
        ),
        clients=(
            "Beyond the matrix: without a string message, clients "
            "that validate the frame can reject it, and the others raise an error with nothing "
            "readable in it."
        ),
        fix=(
            'data: {"error":{"message":"upstream timeout","type":"server_error"}}\n'
            "\n"
            "data: [DONE]\n"
            "\n"
        ),
    ),
)


@HOOKS.claims(RULE)
def claim(name: str, v: SchemaViolation, obj: dict[str, Any]) -> str | None:
    """An error frame's `error` or its `message`, missing or of the wrong type."""
    if name == ERROR and 1 <= len(v.path) <= 2 and v.path[0] == "error":
        return f"error frame without a string error.message ({v.message})"
    return None
