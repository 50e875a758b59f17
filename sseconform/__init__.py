"""sseconform: record, translate and check the SSE streams of LLM APIs and gateways.

The library API mirrors ``sseconform check``::

    import sseconform
    result = sseconform.check_file("stream.sse")
    assert result.ok(), [d.code for d in result.findings]
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sseconform.version import __version__

if TYPE_CHECKING:
    from sseconform.api import FileResult, check_bytes, check_chunks, check_file, check_stream
    from sseconform.findings import Finding
    from sseconform.rules.base import Settings
    from sseconform.rules.catalog import INVARIANTS, RULES, Rule, Severity
    from sseconform.rules.chat.checker import StreamChecker

#: Each name of the API, by the module that holds it: imported when first asked for, so that
#: a command that checks nothing (``record``, ``replay``, ``translate``, ``--help``) does not
#: start by loading every rule (0.2 s of CPU a start; the tests start the CLI some thousands
#: of times).
_WHERE = {
    **dict.fromkeys(
        ("FileResult", "check_bytes", "check_chunks", "check_file", "check_stream"),
        "sseconform.api",
    ),
    "Finding": "sseconform.findings",
    "Settings": "sseconform.rules.base",
    **dict.fromkeys(("INVARIANTS", "RULES", "Rule", "Severity"), "sseconform.rules.catalog"),
    "StreamChecker": "sseconform.rules.chat.checker",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'sseconform' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


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
