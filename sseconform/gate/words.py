"""Verdicts in the endpoint's own words.

The gate compares what the upstream and the gateway mean through one reading (chat chunks),
but a finding is read by someone looking at the endpoint's bytes: on ``/v1/messages`` they
say ``stop_reason: end_turn`` and ``input_tokens``, on ``/v1/responses`` ``status:
incomplete`` with ``incomplete_details``, on Gemini's ``finishReason: MAX_TOKENS`` and
``promptTokenCount``. These name each compared field, and write each value, as that
endpoint's grammar does. A value no chat client knows is shown as it came, never folded
into a grammar's default.
"""

from __future__ import annotations

from sseconform.providers import CHAT_FINISH_KNOWN
from sseconform.translate.encode import anthropic_stop, responses_status
from sseconform.translate.to_gemini import gemini_finish

__all__ = ["finish_field", "finish_value", "usage_key"]

#: Where each grammar says why the answer ended.
_FINISH_FIELD = {
    "chat": "finish_reason",
    "anthropic": "stop_reason",
    "responses": "status",
    "gemini": "finishReason",
}
#: The token counts, by their chat names, as each grammar names them (None: no such count:
#: Anthropic reports no total).
_USAGE: dict[str, dict[str, str | None]] = {
    "anthropic": {
        "prompt_tokens": "input_tokens",
        "completion_tokens": "output_tokens",
        "total_tokens": None,
    },
    "responses": {
        "prompt_tokens": "input_tokens",
        "completion_tokens": "output_tokens",
        "total_tokens": "total_tokens",
    },
    "gemini": {
        "prompt_tokens": "promptTokenCount",
        "completion_tokens": "candidatesTokenCount",
        "total_tokens": "totalTokenCount",
    },
}


def finish_field(grammar: str) -> str:
    """``finish_reason``, ``stop_reason``, ``status`` or ``finishReason``."""
    return _FINISH_FIELD.get(grammar, "finish_reason")


def finish_value(grammar: str, reason: str | None) -> str | None:
    """A chat ``finish_reason`` as the grammar writes it: ``end_turn``, or ``incomplete
    (max_output_tokens)``."""
    if reason is None or grammar == "chat" or reason not in CHAT_FINISH_KNOWN:
        return reason  # another is shown as it came
    if grammar == "anthropic":
        return anthropic_stop(reason)
    if grammar == "gemini":
        return gemini_finish(reason)
    status, why = responses_status(reason)
    return f"{status} ({why})" if why else status


def usage_key(grammar: str, key: str) -> str | None:
    """A chat usage count's name in the grammar; None when the grammar has no such count."""
    return _USAGE.get(grammar, {}).get(key, key)
