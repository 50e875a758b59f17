"""What a request says about which recording answers it, read without trusting it: its
``[sseconform:TAG]``, its model (a bounded read: never a crash, never a copy the size of the
body in Python objects), and whether a Gemini request wants a JSON array."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qsl

import orjson

from sseconform import providers

__all__ = ["MAX_PARSED", "TAG", "model_of", "streams", "tag_of", "wants_array"]

#: A request's tag, anywhere in its body (JSON keeps these characters as they are).
TAG = re.compile(rb"\[sseconform:([A-Za-z0-9_.:/-]{1,200})\]")
#: A request body larger than this is not parsed as JSON to find its model (a 16 MB array
#: of empty objects costs half a gigabyte as Python objects): a bounded scan finds it.
MAX_PARSED = 1024 * 1024


def wants_array(target: str) -> bool:
    """A Gemini stream request without ``alt=sse``: Google answers it with a JSON array."""
    dialect, _ = providers.dialect_of_path(target)
    if dialect != providers.GEMINI:
        return False
    query = target.partition("?")[2]
    return not any(k == "alt" and v == "sse" for k, v in parse_qsl(query, keep_blank_values=True))


_STREAM = re.compile(rb'"stream"\s*:\s*true')


def streams(target: str, body: bytes) -> bool:
    """Whether the request asks for a stream, as the provider reads it: Gemini by its path
    (``:streamGenerateContent``, not ``:generateContent``), the others by ``"stream": true``
    in the body (absent or false: one JSON answer). A body that is not a JSON object is
    answered with the stream, as before this was asked (a provider would refuse it)."""
    dialect, _ = providers.dialect_of_path(target)
    if dialect == providers.GEMINI:
        return ":streamGenerateContent" in target.partition("?")[0]
    if len(body) > MAX_PARSED:
        return _STREAM.search(body) is not None
    try:
        obj: Any = orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        return True
    return not isinstance(obj, dict) or obj.get("stream") is True


def tag_of(body: bytes) -> str | None:
    """The ``[sseconform:TAG]`` a request carries in its body (the first), or None."""
    m = TAG.search(body)
    return m.group(1).decode("ascii") if m else None


_MODEL = re.compile(rb'"model"\s*:\s*"((?:[^"\\\\]|\\\\.){1,256})"')


def model_of(body: bytes) -> str | None:
    """The request's ``model``: parsed as JSON up to MAX_PARSED bytes (orjson refuses
    nesting past 1024 levels, as an error, not a crash), found by a bounded scan past it."""
    if len(body) > MAX_PARSED:
        m = _MODEL.search(body)
        try:
            return json.loads(b'"%b"' % m.group(1)) if m else None
        except ValueError:
            return None
    try:
        obj: Any = orjson.loads(body) if body else None
    except orjson.JSONDecodeError:
        return None
    model = obj.get("model") if isinstance(obj, dict) else None
    return model if isinstance(model, str) else None
