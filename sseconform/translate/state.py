"""How the reference translation carries opaque state through the chunk grammar.

Chat has no standard field for what a provider signs or encrypts and verifies on the next
turn. The one carrier real clients read and send back is OpenRouter's ``reasoning_details``
(the AI SDK's OpenRouter provider, and OpenAI SDK code that sends the assistant message back
as it was accumulated): each piece of state is one entry, with its own ``index``.

==================================  ===============================================================
native state                        ``reasoning_details`` entry
==================================  ===============================================================
Anthropic thinking ``signature``    ``{"type": "reasoning.text", "signature", "format":
                                    "anthropic-claude-v1"}`` (the text stays in
                                    ``reasoning_content``)
Anthropic ``redacted_thinking``     ``{"type": "reasoning.encrypted", "data", "format":
                                    "anthropic-claude-v1"}``
Responses ``encrypted_content``     ``{"type": "reasoning.encrypted", "data", "id": item id,
                                    "format": "openai-responses-v1"}``
Gemini ``thoughtSignature``         ``{"type": "reasoning.encrypted", "data", "id": the call's id
                                    (on a call part), "format": "google-gemini-v1"}``
==================================  ===============================================================

The encoders into Messages and Responses put each entry where those grammars keep state: a
thinking block's ``signature`` (a ``redacted_thinking`` block for Anthropic's redacted data),
a reasoning item's ``encrypted_content``. A gateway maps it back to its upstream's field when
the client sends it back.
"""

from __future__ import annotations

from typing import Any

__all__ = ["ANTHROPIC", "GEMINI", "RESPONSES", "encrypted", "signature", "value_of"]

ANTHROPIC, RESPONSES, GEMINI = "anthropic-claude-v1", "openai-responses-v1", "google-gemini-v1"


def signature(value: str) -> dict[str, Any]:
    """An Anthropic thinking block's signature."""
    return {"type": "reasoning.text", "signature": value, "format": ANTHROPIC}


def encrypted(value: str, fmt: str, id: str | None = None) -> dict[str, Any]:
    """Encrypted state: redacted thinking, encrypted reasoning, a thought signature."""
    entry: dict[str, Any] = {"type": "reasoning.encrypted", "data": value}
    if id:
        entry["id"] = id
    entry["format"] = fmt
    return entry


def value_of(entry: object) -> tuple[str, str] | None:
    """``(kind, value)`` of an entry that carries state: kind ``signature`` or
    ``redacted`` (Anthropic's redacted thinking) or ``encrypted`` (any other format)."""
    if not isinstance(entry, dict):
        return None
    sig, data = entry.get("signature"), entry.get("data")
    if isinstance(sig, str) and sig:
        return "signature", sig
    if isinstance(data, str) and data and entry.get("type") == "reasoning.encrypted":
        return ("redacted" if entry.get("format") == ANTHROPIC else "encrypted"), data
    return None
