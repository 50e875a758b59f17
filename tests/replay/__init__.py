"""Tests for ``sseconform replay``: the plan (pure), the server on loopback, and real clients."""
