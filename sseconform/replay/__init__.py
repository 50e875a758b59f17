"""replay: serve recordings as a mock upstream on loopback, with timing and faults."""
