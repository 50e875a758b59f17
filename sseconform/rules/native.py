"""What provider-native streams look like, so their names and shapes can be caught leaking."""

from __future__ import annotations

from typing import Any

from sseconform.providers import ANTHROPIC_EVENTS


def is_chat_chunk(obj: dict[str, Any]) -> bool:
    """An object without a string ``type`` that is an OpenAI chat completion chunk."""
    return "choices" in obj or obj.get("object") == "chat.completion.chunk"


def is_native_event_name(name: str) -> bool:
    """Anthropic Messages event names and every OpenAI Responses API event (``response.*``)."""
    return name in ANTHROPIC_EVENTS or name.startswith("response.")


#: Reasoning fields some providers send in a chunk's delta instead of ``reasoning_content``.
NONSTANDARD_REASONING = ("reasoning", "reasoning_details")

#: Top-level keys that only native payloads have (Gemini responses, Responses API events).
NATIVE_TOP_KEYS = frozenset({"candidates", "usageMetadata", "promptFeedback", "sequence_number"})

#: Keys inside a chunk that only native dialects use.
NATIVE_KEYS = frozenset(
    {
        "partial_json",
        "content_block",
        "functionCall",
        "functionResponse",
        "thoughtSignature",
        "input_json_delta",
        "finishReason",
        "usageMetadata",
        "candidates",
        "parts",
    }
)

#: Values of a native ``type`` field (event types and block/delta types).
NATIVE_TYPES = ANTHROPIC_EVENTS | frozenset(
    {
        "text_delta",
        "input_json_delta",
        "thinking_delta",
        "signature_delta",
        "citations_delta",
        "tool_use",
        "server_tool_use",
        "web_search_tool_result",
        "thinking",
        "redacted_thinking",
        "text",
    }
)

NATIVE_FINISH_REASONS = frozenset(
    {
        # Anthropic stop_reason
        "end_turn",
        "stop_sequence",
        "max_tokens",
        "tool_use",
        "pause_turn",
        "refusal",
        # Gemini finishReason
        "STOP",
        "MAX_TOKENS",
        "SAFETY",
        "RECITATION",
        "BLOCKLIST",
        "PROHIBITED_CONTENT",
        "SPII",
        "MALFORMED_FUNCTION_CALL",
        "OTHER",
        "FINISH_REASON_UNSPECIFIED",
        "LANGUAGE",
        "IMAGE_SAFETY",
        # Responses API status / incomplete reason
        "completed",
        "incomplete",
        "max_output_tokens",
    }
)


def is_native_type(value: object) -> bool:
    """A ``type`` value from a native dialect (``response.*`` included)."""
    return isinstance(value, str) and (value in NATIVE_TYPES or value.startswith("response."))
