"""Which grammar a stream is checked against, and the checker for it.

``chat`` (OpenAI ``chat.completion.chunk`` frames) is the default: the contract most gateway
clients parse. ``anthropic`` (Messages events, what Claude Code and the Anthropic SDKs parse)
``responses`` (Responses API events, what Codex CLI and the Agents SDK parse) and ``gemini``
(``GenerateContentResponse`` chunks, what Gemini CLI and google-genai parse) each have their
package under ``sseconform/rules/``, whose ``checker`` module exposes ``CHECKER``.
``auto`` picks one from the stream's first event.
"""

from __future__ import annotations

import orjson

from sseconform.providers import ANTHROPIC_EVENTS
from sseconform.rules.base import Checker, Settings
from sseconform.rules.catalog import GRAMMARS

__all__ = ["AUTO", "CHOICES", "GRAMMARS", "checker_for", "detect"]

AUTO = "auto"
CHOICES = (*GRAMMARS, AUTO)


def checker_for(grammar: str, settings: Settings | None = None) -> Checker:
    """A fresh checker for ``grammar`` (one of GRAMMARS)."""
    if grammar == "chat":
        from sseconform.rules.chat.checker import StreamChecker

        return StreamChecker(settings)
    # each checker named, not found at run time: the import graph sees every arrow, and a
    # command loads only the grammar it checks
    made: type[Checker]
    if grammar == "anthropic":
        from sseconform.rules.anthropic.checker import CHECKER as made
    elif grammar == "responses":
        from sseconform.rules.responses.checker import CHECKER as made
    elif grammar == "open-responses":
        from sseconform.rules.open_responses.checker import CHECKER as made
    elif grammar == "gemini":
        from sseconform.rules.gemini.checker import CHECKER as made
    else:
        raise ValueError(f"unknown grammar {grammar!r}; grammars: {', '.join(CHOICES)}")
    return made(settings)


def detect(head: bytes) -> str:
    """The grammar of a body from its first bytes: the first event with data decides.

    ``event: message_start`` or data ``{"type": "message_start" | "ping" | ...}`` is Anthropic;
    ``{"type": "response.*"}`` is Responses; an untyped object with ``candidates``,
    ``promptFeedback`` or ``usageMetadata`` (and no ``choices``) is Gemini's; a stream that
    starts with an error event is told by the error's shape; anything else (chunks, not JSON,
    nothing) is chat, whose rules then say what is wrong with it.
    """
    first = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if (first == b"[" and any(k in head for k in _GEMINI_KEYS)) or (
        first == b"{" and any(k in head for k in _GEMINI_ANSWER)
    ):  # Gemini without alt=sse (one JSON array of chunks), or its non-streaming answer
        return "gemini"
    for block in head.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n\n"):
        event = None
        data = []
        for line in block.split(b"\n"):
            if line.startswith(b"event:"):
                event = line[6:].strip().decode("utf-8", "replace")
            elif line.startswith(b"data:"):
                data.append(line[5:].removeprefix(b" "))
        if not data:
            continue
        kind = event
        try:
            obj = orjson.loads(b"\n".join(data))
        except orjson.JSONDecodeError:
            obj = None
        if isinstance(obj, dict) and isinstance(obj.get("type"), str):
            kind = obj["type"]
        elif isinstance(obj, dict) and _is_gemini(obj):  # with an `event:` line or without
            return "gemini"
        if kind is None:
            return "chat"
        if kind.startswith("response."):
            return "responses"
        if kind in ANTHROPIC_EVENTS:  # any of them first says the stream is Anthropic's
            return "anthropic"
        if kind == "error" and isinstance(obj, dict):
            return _error_grammar(obj)
        return "chat"
    return "chat"


#: What a Gemini chunk (or Google's error) holds, as its bytes show it.
_GEMINI_KEYS = (b'"candidates"', b'"usageMetadata"', b'"promptFeedback"', b'"status"')
#: What only a Gemini answer holds (a bare object with ``status`` may be another API's).
_GEMINI_ANSWER = _GEMINI_KEYS[:3]


def _is_gemini(obj: dict[str, object]) -> bool:
    """A Gemini chunk (``candidates``, ``promptFeedback``, ``usageMetadata``) or Google's
    error (``{"error": {"code", "message", "status"}}``)."""
    if "choices" in obj:
        return False
    if any(k in obj for k in ("candidates", "promptFeedback", "usageMetadata")):
        return True
    error = obj.get("error")
    return isinstance(error, dict) and isinstance(error.get("status"), str)


def _error_grammar(obj: dict[str, object]) -> str:
    """An error as the first event: Anthropic nests it (``{"type": "error", "error": {...}}``);
    the Responses API's is flat and numbered (``code``, ``message``, ``sequence_number``).
    A typed error of neither shape is no chat chunk either, but chat's rules name it best."""
    if isinstance(obj.get("error"), dict):
        return "anthropic"
    if "sequence_number" in obj or ("message" in obj and "code" in obj):
        return "responses"
    return "chat"
