"""Rules every grammar shares: the SSE wire (W), JSON and schemas (J), the HTTP response of a
recording (H)."""
