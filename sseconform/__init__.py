"""sseconform: record, translate and check the SSE streams of LLM APIs and gateways.

The library API mirrors ``sseconform check``::

    import sseconform
    result = sseconform.check_file("stream.sse")
    assert result.ok(), [d.code for d in result.diagnostics]
"""

from __future__ import annotations

from sseconform.api import FileResult, check_bytes, check_chunks, check_file, check_stream
from sseconform.findings import Finding
from sseconform.rules.base import Settings
from sseconform.rules.catalog import INVARIANTS, RULES, Rule, Severity
from sseconform.rules.chat.checker import StreamChecker
from sseconform.version import __version__

__all__ = [
    "INVARIANTS",
    "RULES",
    "FileResult",
    "Finding",
    "Rule",
    "Settings",
    "Severity",
    "StreamChecker",
    "__version__",
    "check_bytes",
    "check_chunks",
    "check_file",
    "check_stream",
]
