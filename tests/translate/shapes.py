"""One real stream per shape: the CI subset of the tests that read the whole real-stream corpus
through the SDKs over loopback HTTP (seconds of CPU a hundred streams, 60 s over all of them),
and of the streams ``test_corpus.py`` feeds the translator a byte at a time.

A stream's shape is what its events exercise, as a reader of its dialect sees them: its
``event:`` names; every ``type``, ``finish_reason``, ``finishReason``, ``stop_reason``,
``status``, ``role`` and ``object`` value with the place it sits at; the keys of each delta,
part, content block, item and message (a chat delta's ``reasoning_content`` or ``refusal``, a
Gemini part's ``thought`` or ``functionCall``); and whether a ``data:`` line is not JSON. Two
streams of a shape differ in their words, ids, counts and lengths: what the SDKs and the
translator read them into is built the same way. The choice is deterministic: the shortest
stream of each shape (the first by path of the shortest), as the cost is in the bytes.

``SSECONFORM_TESTS_FULL=1`` runs every stream.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from tests.conftest import TESTS_FULL

#: The keys whose string values name a kind of event, part or ending.
KIND_KEYS = frozenset(
    {"type", "finish_reason", "finishReason", "stop_reason", "status", "role", "object"}
)
#: The objects whose keys say what a piece of content is.
CONTENT_PARENTS = frozenset({"delta", "parts", "content_block", "item", "message"})

Shape = tuple[str, frozenset[str]]


def _walk(obj: Any, path: str, parent: str, out: set[str]) -> None:
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in KIND_KEYS and isinstance(value, str):
                out.add(f"{path}.{key}={value}")
            if parent in CONTENT_PARENTS:
                out.add(f"{parent}.{key}")
            _walk(value, f"{path}.{key}", key, out)
    elif isinstance(obj, list):
        for value in obj:
            _walk(value, f"{path}[]", parent, out)


def shape(body: bytes, dialect: str) -> Shape:
    """What the stream's events exercise (see the module's docstring)."""
    seen: set[str] = set()
    for raw in body.split(b"\n"):
        line = raw.strip()
        if line.startswith(b"event:"):
            seen.add(line.decode("utf-8", "replace"))
        elif line.startswith(b"data:"):
            try:
                _walk(json.loads(line[5:]), "", "", seen)
            except ValueError:
                seen.add("data: not JSON")
    return dialect, frozenset(seen)


def one_per_shape(
    streams: Iterable[tuple[str, bytes, str]], keep: Iterable[str] = ()
) -> frozenset[str]:
    """The paths of ``(path, body, dialect)`` streams a CI run reads: the shortest of each shape,
    and every path in ``keep`` (the streams a test names, so its stale-entry check still
    sees them); all of them under ``SSECONFORM_TESTS_FULL=1``."""
    items = list(streams)
    if TESTS_FULL:
        return frozenset(path for path, _, _ in items)
    shortest: dict[Shape, tuple[int, str]] = {}
    for path, body, dialect in items:
        key = shape(body, dialect)
        shortest[key] = min(shortest.get(key, (len(body), path)), (len(body), path))
    return frozenset(path for _, path in shortest.values()) | frozenset(keep)
