"""The project's own errors: each becomes a one-line message and exit code 2, never a traceback."""

from __future__ import annotations


class SseconformError(Exception):
    """Base of every error the command line turns into a clean message."""


class InputError(SseconformError):
    """Input that cannot be checked at all: missing, a directory, unreadable, a broken recording.

    Keeps the path apart from the reason, so a report can say each once.
    """

    def __init__(self, reason: str, path: str | None = None) -> None:
        super().__init__(f"{path}: {reason}" if path else reason)
        self.reason = reason
        self.path = path


class UsageError(SseconformError):
    """Bad arguments or settings."""
