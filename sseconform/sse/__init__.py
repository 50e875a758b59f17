"""SSE wire layer: bytes in, events and wire anomalies out. Standard library only."""

from sseconform.sse.decoder import Anomaly, Event, SSEDecoder, decode_all

__all__ = ["Anomaly", "Event", "SSEDecoder", "decode_all"]
