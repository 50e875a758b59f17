"""``gate`` and ``diff``: drive a gateway with known upstream behaviour and grade what it sends."""
