"""What each provider dialect looks like on the wire, in one place.

``record`` uses the presets (URL, auth header and its environment variable, version header,
stream flag); ``replay`` uses the paths, the HTTP error bodies and the in-band error events,
so a mock upstream fails the way the real one does. Standard library only.

One name per concept, and the one table between them (``WIRES``): a *dialect* is what an
upstream speaks (``DIALECTS``: openai, anthropic, gemini, responses); a *grammar* is what a
stream is checked against (``rules.catalog.GRAMMARS``: chat, anthropic, responses,
open-responses, gemini); an *endpoint* is what a gateway serves its clients (``ENDPOINTS``: chat,
messages, responses, gemini). The same wire format has a name on each side (openai / chat / chat,
anthropic / anthropic / messages); every mapping between them is read from ``WIRES``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

OPENAI = "openai"
ANTHROPIC = "anthropic"
GEMINI = "gemini"
RESPONSES = "responses"
DIALECTS = (OPENAI, ANTHROPIC, GEMINI, RESPONSES)


@dataclass(frozen=True)
class WireNames:
    """One wire format a gateway serves, by its name on each side (what the wire knows is
    ``sseconform.wires``)."""

    endpoint: str  # what a gateway serves (gate --endpoint, [endpoint.NAME] in a profile)
    path: str  # where it serves it by default ({model}: the model, where the path names it)
    dialect: str  # what an upstream speaking it is (replay, translate's readers)
    grammar: str  # what its streams are checked against (check --grammar, translate --to)
    #: The grammars a profile may check the endpoint's streams against instead: a
    #: specification the gateway claims, layered on the endpoint's own.
    grammars: tuple[str, ...]


#: Gemini's streaming call, as Gemini CLI and google-genai make it: the model is in the path,
#: and ``alt=sse`` asks for SSE events (without it, one JSON array).
GEMINI_STREAM = "/v1beta/models/{model}:streamGenerateContent?alt=sse"
MODEL = "{model}"

#: Every wire format a gateway serves, in report order.
WIRES = (
    WireNames("chat", "/v1/chat/completions", OPENAI, "chat", ("chat",)),
    WireNames("messages", "/v1/messages", ANTHROPIC, "anthropic", ("anthropic",)),
    WireNames(
        "responses", "/v1/responses", RESPONSES, "responses", ("responses", "open-responses")
    ),
    WireNames("gemini", GEMINI_STREAM, GEMINI, "gemini", ("gemini",)),
)
#: endpoint -> its default path, in report order
ENDPOINTS: dict[str, str] = {w.endpoint: w.path for w in WIRES}
ENDPOINT_DIALECT: dict[str, str] = {w.endpoint: w.dialect for w in WIRES}
ENDPOINT_GRAMMAR: dict[str, str] = {w.endpoint: w.grammar for w in WIRES}
ENDPOINT_GRAMMARS: dict[str, tuple[str, ...]] = {w.endpoint: w.grammars for w in WIRES}
#: grammar -> the dialect whose own streams it is (a source already in it passes through)
GRAMMAR_DIALECT: dict[str, str] = {w.grammar: w.dialect for w in WIRES}
#: dialect -> the grammar its streams are checked against
DIALECT_GRAMMAR: dict[str, str] = {w.dialect: w.grammar for w in WIRES}
#: grammar -> the path its streams are served at (no query; a model named ``model`` where the
#: path has one)
GRAMMAR_PATH: dict[str, str] = {
    w.grammar: w.path.split("?", 1)[0].replace(MODEL, "model") for w in WIRES
}


def non_streaming_path(path: str) -> str | None:
    """Gemini's non-streaming call where its streaming one is served (the same route, with
    ``:generateContent`` and no ``alt=sse``); None for a path that is no such call."""
    base, _, query = path.partition("?")
    if ":streamGenerateContent" not in base:
        return None
    base = base.replace(":streamGenerateContent", ":generateContent")
    rest = "&".join(p for p in query.split("&") if p and p != "alt=sse")
    return base + ("?" + rest if rest else "")


def endpoint_path(path: str, model: str) -> str:
    """An endpoint's path with its model filled in (Gemini names the model in the path)."""
    return path.replace(MODEL, model)


#: The event types of an Anthropic Messages stream, besides ``error``: the one table of them.
ANTHROPIC_EVENTS = frozenset(
    {
        "message_start",
        "message_delta",
        "message_stop",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "ping",
    }
)


@dataclass(frozen=True)
class Preset:
    """How to call a provider's streaming endpoint."""

    dialect: str
    url: str  # may hold {model}
    env: tuple[str, ...]  # environment variables tried in order for the key
    auth_header: str
    auth_format: str  # "{key}" or "Bearer {key}"
    headers: dict[str, str] = field(default_factory=dict)


PRESETS: dict[str, Preset] = {
    OPENAI: Preset(
        OPENAI,
        "https://api.openai.com/v1/chat/completions",
        ("OPENAI_API_KEY",),
        "authorization",
        "Bearer {key}",
    ),
    RESPONSES: Preset(
        RESPONSES,
        "https://api.openai.com/v1/responses",
        ("OPENAI_API_KEY",),
        "authorization",
        "Bearer {key}",
    ),
    ANTHROPIC: Preset(
        ANTHROPIC,
        "https://api.anthropic.com/v1/messages",
        ("ANTHROPIC_API_KEY",),
        "x-api-key",
        "{key}",
        {"anthropic-version": "2023-06-01"},
    ),
    GEMINI: Preset(
        GEMINI,
        "https://generativelanguage.googleapis.com/v1beta/models/{model}:streamGenerateContent?alt=sse",
        ("GEMINI_API_KEY", "GOOGLE_API_KEY"),
        "x-goog-api-key",
        "{key}",
    ),
}


def prepare_body(dialect: str, body: Any) -> Any:
    """Ask for a stream the way the dialect wants it (Gemini asks in the URL instead)."""
    if isinstance(body, dict) and dialect != GEMINI:
        body = {**body, "stream": True}
    return body


# -- finish reasons --------------------------------------------------------------------------

#: Anthropic stop_reason -> chat finish_reason (GUIDE §2).
#: What a provider itself sends while it thinks, to keep a quiet stream alive: Anthropic's
#: ``ping`` event. The others send nothing of their own (a silence is a silence).
KEEPALIVE: dict[str, bytes] = {
    ANTHROPIC: b'event: ping\ndata: {"type": "ping"}\n\n',
}


def takes_keepalive(grammar: str) -> bool:
    """Can a client of this grammar take a keepalive (an SSE comment, Anthropic's ping)?
    Gemini's cannot: google-genai and Gemini CLI fail on any line but ``data:``."""
    return grammar != "gemini"


def opens_before_content(grammar: str) -> bool:
    """Has the grammar an event that opens a stream before any content (chat's role chunk,
    ``message_start``, ``response.created``)? Gemini's has not: every chunk is content."""
    return grammar != "gemini"


#: OpenAI chat's finish_reason values: what a translation into chat writes.
CHAT_FINISH_REASONS = ("stop", "length", "tool_calls", "content_filter")
#: ... and, with the deprecated ``function_call``, every one a reader of chat knows.
CHAT_FINISH_KNOWN = frozenset({*CHAT_FINISH_REASONS, "function_call"})
ANTHROPIC_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
#: Gemini finishReason -> chat finish_reason (STOP becomes tool_calls after calls).
GEMINI_FINISH = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "LANGUAGE": "content_filter",
}
#: Responses API end states -> chat finish_reason.
RESPONSES_FINISH = {"completed": "stop", "max_output_tokens": "length"}
#: finishReason values of the Gemini API and Vertex AI (google-genai's ``FinishReason``): the
#: one list (rule V004 and the gate's reading of a gateway's finish).
GEMINI_FINISH_REASONS = frozenset(
    {
        "FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "LANGUAGE",
        "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL",
        "IMAGE_SAFETY", "IMAGE_PROHIBITED_CONTENT", "IMAGE_OTHER", "IMAGE_RECITATION",
        "NO_IMAGE", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "MISSING_THOUGHT_SIGNATURE",
        "MALFORMED_RESPONSE",
    }
)  # fmt: skip
#: thoughtSignature values Gemini takes in place of one it issued, skipping its check: Gemini
#: CLI's (its history hardening puts it on a call part that came without a signature, measured
#: in tests/interop/heavy/test_agent_turns.py) and the one Google's docs give for a history
#: whose calls another model made. The history still lacks the model's thoughts.
GEMINI_CLI_SIGNATURE = "skip_thought_signature_validator"
GEMINI_SKIP_SIGNATURES = frozenset({GEMINI_CLI_SIGNATURE, "context_engineering_is_the_way_to_go"})
#: The key a native stream's finish is under (a cheap test before a parse).
FINISH_KEYS = {ANTHROPIC: '"stop_reason"', RESPONSES: '"status"', GEMINI: '"finishReason"'}
#: How each native grammar may end, in :func:`native_finish`'s words.
KNOWN_FINISH: dict[str, frozenset[str]] = {
    ANTHROPIC: frozenset(ANTHROPIC_FINISH),
    RESPONSES: frozenset(
        {"completed", "incomplete (max_output_tokens)", "incomplete (content_filter)", "failed"}
    ),
    GEMINI: GEMINI_FINISH_REASONS,
}


def native_finish(dialect: str, obj: Any) -> str | None:
    """How a native event says the answer ended, in its own words: Anthropic's
    ``stop_reason``; a Responses terminal event's status, with ``incomplete_details.reason``
    in brackets (``incomplete (max_output_tokens)``); Gemini's first candidate's
    ``finishReason``. None: this event says nothing of it."""
    if not isinstance(obj, dict):
        return None
    if dialect == ANTHROPIC:
        delta = obj.get("delta")
        reason = delta.get("stop_reason") if isinstance(delta, dict) else None
        return reason if isinstance(reason, str) else None
    if dialect == RESPONSES:
        resp = obj.get("response")
        terminal = ("response.completed", "response.incomplete", "response.failed")
        if obj.get("type") not in terminal or not isinstance(resp, dict):
            return None
        status = resp.get("status")
        details = resp.get("incomplete_details")
        why = details.get("reason") if isinstance(details, dict) else None
        if not isinstance(status, str):
            return None
        return f"{status} ({why})" if isinstance(why, str) else status
    if dialect == GEMINI:
        candidates = obj.get("candidates")
        first = candidates[0] if isinstance(candidates, list) and candidates else None
        reason = first.get("finishReason") if isinstance(first, dict) else None
        return reason if isinstance(reason, str) else None
    return None


#: Any native finish reason -> what a gateway should have sent (for check's messages).
NATIVE_FINISH = {**ANTHROPIC_FINISH, **GEMINI_FINISH, **RESPONSES_FINISH}


# -- routing ---------------------------------------------------------------------------------

#: Gemini's streaming and non-streaming calls: the model is in the path
_GEMINI_PATH = re.compile(r"^/v1(?:beta|alpha)?/models/([^/:]+):(?:streamG|g)enerateContent$")


def dialect_of_path(path: str) -> tuple[str | None, str | None]:
    """The dialect a request path asks for, and the model when the path carries it."""
    p = path.split("?", 1)[0].rstrip("/")
    if p.endswith("/chat/completions"):
        return OPENAI, None
    if p.endswith("/messages"):
        return ANTHROPIC, None
    if p.endswith("/responses"):
        return RESPONSES, None
    m = _GEMINI_PATH.match(p)
    if m:
        return GEMINI, m.group(1)
    return None, None


def dialect_of_url(url: str) -> str | None:
    """The dialect a request URL's path asks for; None when the path names none."""
    return dialect_of_path(_path_of(url))[0]


def detect(body_head: bytes, url: str | None = None) -> str | None:
    """The dialect of a recorded stream: from its request URL, else from its first bytes."""
    if url:
        d, _ = dialect_of_path(_path_of(url))
        if d:
            return d
    text = body_head[:8192].decode("utf-8", "replace")
    if "event: message_start" in text or '"type": "message_start"' in text.replace('":"', '": "'):
        return ANTHROPIC
    if "event: response." in text or '"type":"response.' in text:
        return RESPONSES
    if '"candidates"' in text or '"usageMetadata"' in text:
        return GEMINI
    if "chat.completion.chunk" in text or '"choices"' in text:
        return OPENAI
    return None


#: Gemini's non-streaming call at the end of a path (a gateway may mount it under a prefix).
_GEMINI_WHOLE = re.compile(r"/v1(?:beta|alpha)?/models/[^/:]+:generateContent$")


def asks_whole(url: str) -> bool:
    """Does a request URL (or path) ask Gemini's non-streaming call, ``:generateContent``,
    whose answer is one JSON object (at ``/v1beta/models/...``, or under a gateway's
    prefix)?"""
    return _GEMINI_WHOLE.search(_path_of(url).split("?", 1)[0].rstrip("/")) is not None


def _path_of(url: str) -> str:
    m = re.match(r"^[a-z]+://[^/]+(/[^?#]*)", url)
    return m.group(1) if m else url


# -- failures --------------------------------------------------------------------------------

_MESSAGES = {
    429: "Rate limit reached for requests (sseconform replay)",
    500: "The server had an error while processing your request (sseconform replay)",
    503: "The service is temporarily unavailable (sseconform replay)",
    529: "Overloaded (sseconform replay)",
}
_ANTHROPIC_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    529: "overloaded_error",
}
_GEMINI_STATUS = {
    400: "INVALID_ARGUMENT",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}


#: Seconds a replayed 429 (and Anthropic's 529) asks the client to wait: the providers say
#: when to retry on these, and a gateway should pass the header on to its client.
RETRY_AFTER = 1


def error_headers(dialect: str | None, status: int) -> list[tuple[str, str]]:
    """The headers the provider sends with an HTTP error besides its content type: Anthropic
    and OpenAI send ``retry-after`` with a 429 (Anthropic with a 529 too); Google says when to
    retry in the body's ``RetryInfo`` instead."""
    if dialect == GEMINI:
        return []
    if status == 429 or (status == 529 and dialect == ANTHROPIC):
        return [("retry-after", str(RETRY_AFTER))]
    return []


def error_body(dialect: str | None, status: int) -> bytes:
    """The JSON body the provider sends with an HTTP error before any stream."""
    msg = _MESSAGES.get(status, f"HTTP {status} (sseconform replay)")
    obj: dict[str, Any]
    if dialect == ANTHROPIC:
        kind = _ANTHROPIC_TYPES.get(status, "api_error")
        obj = {"type": "error", "error": {"type": kind, "message": msg}}
    elif dialect == GEMINI:
        obj = {
            "error": {
                "code": status,
                "message": msg,
                "status": _GEMINI_STATUS.get(status, "UNKNOWN"),
            }
        }
    else:
        code = "rate_limit_exceeded" if status == 429 else None
        kind = "requests" if status == 429 else "server_error"
        obj = {"error": {"message": msg, "type": kind, "param": None, "code": code}}
    return json.dumps(obj).encode()


def error_data(dialect: str | None, *, sequence_number: int = 0) -> dict[str, Any]:
    """The dialect's own in-band error object, as the provider sends it mid-stream."""
    if dialect == ANTHROPIC:
        return {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    if dialect == RESPONSES:
        return {
            "type": "error",
            "code": "server_error",
            "message": "The server had an error while processing your request.",
            "param": None,
            "sequence_number": sequence_number,
        }
    if dialect == GEMINI:
        return {
            "error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}
        }
    return {
        "error": {
            "message": "The server had an error while processing your request.",
            "type": "server_error",
            "param": None,
            "code": None,
        }
    }


def error_event(dialect: str | None, framing: bytes = b"\n", *, sequence_number: int = 0) -> bytes:
    """The dialect's own in-band error, as the provider sends it mid-stream: one SSE event."""
    nl = framing
    data = json.dumps(error_data(dialect, sequence_number=sequence_number)).encode()
    named = dialect in (ANTHROPIC, RESPONSES)  # both name the event
    return (b"event: error" + nl if named else b"") + b"data: " + data + nl + nl
