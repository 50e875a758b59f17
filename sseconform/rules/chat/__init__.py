"""The chat grammar (OpenAI ``chat.completion.chunk`` frames): its checker (``checker``,
one pass with the state every rule shares, for speed) and its rules (``rules/``, one module
per rule: its code, severity, invariant and docs)."""
