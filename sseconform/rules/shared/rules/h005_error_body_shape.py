"""H005 error-body-shape: A non-2xx body not in the endpoint's error shape."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import orjson

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.shared.hooks import ERROR_BODY

if TYPE_CHECKING:
    from sseconform.rules.base import Checker


RULE = define(
    "H005",
    "error-body-shape",
    Severity.WARNING,
    None,
    "A non-2xx body not in the endpoint's error shape.",
    RuleDoc(
        what=(
            "An HTTP error's body is checked against the error shape of the API it answers: "
            'Anthropic Messages `{"type": "error", "error": {"type": ..., "message": ...}}`; '
            'OpenAI chat and Responses `{"error": {"message": ..., "type": ..., "code": ...}}`; '
            'Gemini `{"error": {"code": ..., "message": ..., "status": ...}}`.'
        ),
        why=(
            "Gateways that translate often pass on their own or the upstream's error body "
            "untranslated (an OpenAI-shaped body on /v1/messages, a bare string). The client "
            "still raises by the status, but what it says and what it decides from the body "
            "(Anthropic's `error.type`, such as `overloaded_error`; OpenAI's `code`, such as "
            "`context_length_exceeded`) is lost."
        ),
        clients=(
            "Measured in tests/test_error_bodies.py: anthropic-python and openai-python raise "
            "the class the status picks whatever the body (RateLimitError for 429, "
            "OverloadedError for Anthropic's 529, InternalServerError for 5xx), so nothing "
            "crashes. But anthropic-python's `error.type` (what a client branches on, such as "
            "`overloaded_error`) is None without Anthropic's shape, and openai-python's "
            "message, `type` and `code` are read from the `error` object only. A warning, not "
            "an error: the status alone still reaches every client."
        ),
        example=(
            "HTTP/1.1 529 \n"
            "content-type: application/json\n"
            "\n"
            '{"error":{"message":"upstream overloaded","code":529}}\n'
            "\n"
            "on /v1/messages: no top-level type, no error.type"
        ),
        fix=(
            "Answer in the endpoint's own error shape, whatever the upstream's was: on "
            '/v1/messages `{"type":"error","error":{"type":"overloaded_error",'
            '"message":"..."}}`, on /v1/chat/completions and /v1/responses '
            '`{"error":{"message":"...","type":"...","code":...}}`.'
        ),
    ),
)

#: An error body is read whole up to this size (they are small; a larger one is judged
#: by its start, and a body cut there is not JSON).
MAX_BODY = 64 * 1024
#: What each endpoint's clients expect, said once for the message
SHAPES = {
    "anthropic": '{"type": "error", "error": {"type": ..., "message": ...}}',
    "chat": '{"error": {"message": ..., "type": ..., "code": ...}}',
    "responses": '{"error": {"message": ..., "type": ..., "code": ...}}',
    "gemini": '{"error": {"code": ..., "message": ..., "status": ...}}',
}


def problem(grammar: str, body: bytes) -> str | None:
    """Why ``body`` is not the error shape of ``grammar`` (chat, anthropic, responses or
    gemini), or None when it is."""
    try:
        obj: Any = orjson.loads(body[:MAX_BODY])
    except orjson.JSONDecodeError:
        return f"the body is not JSON; {_expected(grammar)}"
    if not isinstance(obj, dict):
        return f"the body is JSON but not an object; {_expected(grammar)}"
    err = obj.get("error")
    if not isinstance(err, dict):
        return f"no `error` object; {_expected(grammar)}"
    missing = [k for k in _required(grammar) if not isinstance(err.get(k), _TYPES[k])]
    if grammar == "anthropic" and obj.get("type") != "error":
        missing.insert(0, 'top-level "type": "error"')
    if missing:
        return f"missing {', '.join(_named(m) for m in missing)}; {_expected(grammar)}"
    return None


_TYPES: dict[str, type | tuple[type, ...]] = {
    "message": str,
    "type": str,
    "code": int,
    "status": str,
}


def _required(grammar: str) -> tuple[str, ...]:
    if grammar == "anthropic":
        return ("type", "message")
    if grammar == "gemini":
        return ("code", "message", "status")
    return ("message",)  # OpenAI: type and code may be null on compatible servers


def _named(key: str) -> str:
    return key if key.startswith("top-level") else f"error.{key}"


def _expected(grammar: str) -> str:
    return f"this endpoint's clients read {SHAPES.get(grammar, SHAPES['chat'])}"


@ERROR_BODY.on(RULE)
def check(c: Checker, status: int, why: str) -> None:
    """An error response's body in a shape its endpoint's clients cannot read."""
    c.report_about_file(RULE, f"HTTP {status}: {why}")
