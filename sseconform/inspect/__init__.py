"""``sseconform inspect``: a live view of a stream reassembling (state, rich rendering, drivers)."""
