"""The WebSocket transport read back: a server's frames as messages (:mod:`.frames`)."""
