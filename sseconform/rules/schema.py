"""The JSON Schemas in ``schemas/``, compiled once, and how a violation maps to a rule code.

jsonschema-rs validates a chunk in well under a microsecond (the pure-Python ``jsonschema`` takes
~100x the JSON parse), so every frame is validated; ``jsonschema`` stays the reference in tests.
Only a failing frame pays for collecting errors. A violation at a place a specific rule owns
(``object``, a tool-call ``index``, ``finish_reason``, ``role``, ``error.message``) takes that
rule's code, so one fault gives one diagnostic; any other is J003 with its JSON pointer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

from sseconform.providers import NATIVE_FINISH
from sseconform.rules.native import NATIVE_FINISH_REASONS

CHUNK = "chat-completion-chunk"
USAGE = "usage-chunk"
ERROR = "error-frame"
SCHEMA_NAMES = (CHUNK, USAGE, ERROR)
#: Not a stream's: what ``load --render`` accepts as a saved report.
LOAD_REPORT = "load-report"


def schema_dir() -> Path:
    """Installed wheels carry the schemas inside the package; a source tree has them on top."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here / "schemas", here.parent / "schemas"):
        if (candidate / f"{CHUNK}.schema.json").is_file():
            return candidate
    raise FileNotFoundError("the schemas/ folder is missing from this installation")


@cache
def load_schema(name: str) -> dict[str, Any]:
    with open(schema_dir() / f"{name}.schema.json", encoding="utf-8") as f:
        schema: dict[str, Any] = json.load(f)
    return schema


@cache
def validator(name: str) -> Any:
    return jsonschema_rs.validator_for(load_schema(name))


@cache
def spec_validator(name: str, definition: str) -> Any:
    """A validator for one ``$defs`` entry of a schema file that keeps a whole specification
    (its events share their definitions): the file's ``$defs`` with a ``$ref`` to the one."""
    doc = load_schema(name)
    pointer = definition.replace("~", "~0").replace("/", "~1")
    return jsonschema_rs.validator_for({**doc, "$ref": f"#/$defs/{pointer}"})


@dataclass(frozen=True, slots=True)
class SchemaViolation:
    code: str
    pointer: str
    message: str


def pointer_of(path: list[str | int]) -> str:
    """RFC 6901 pointer from an instance path."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _value_at(obj: Any, path: list[str | int]) -> Any:
    for p in path:
        try:
            obj = obj[p]
        except (KeyError, IndexError, TypeError):
            return None
    return obj


def error_path(err: Any) -> list[str | int]:
    """Where a validation error is: its instance path, and for a missing property that
    property (so the pointer names the field that should be there)."""
    path: list[str | int] = list(err.instance_path)
    keyword = err.schema_path[-1] if err.schema_path else ""
    prop = getattr(err.kind, "property", None) if keyword == "required" else None
    return [*path, prop] if isinstance(prop, str) else path


def violations(name: str, obj: Any) -> Iterator[SchemaViolation]:
    """Every violation of schema ``name`` by ``obj``, each with its rule code. A value nested
    past what the validator walks is one J003 for the frame, not an exception."""
    try:
        errors = list(validator(name).iter_errors(obj))
    except (ValueError, RecursionError) as exc:
        yield SchemaViolation("J003", "", f"the frame is nested too deeply to validate ({exc})")
        return
    for err in errors:
        full = error_path(err)
        code = _code_for(name, full, obj)
        yield SchemaViolation(code, pointer_of(full), _message(code, full, obj, str(err.message)))


def _code_for(name: str, path: list[str | int], obj: Any) -> str:
    n = len(path)
    if name == ERROR:
        return "E001" if n >= 1 and path[0] == "error" and n <= 2 else "J003"
    if n == 1 and path[0] == "object":
        return "G001"
    if name == USAGE:
        return "U002" if n == 1 and path[0] == "choices" else "J003"
    if n >= 2 and path[0] == "choices":
        if n == 3 and path[2] == "finish_reason":
            value = _value_at(obj, path)
            return "N003" if isinstance(value, str) and value in NATIVE_FINISH_REASONS else "F006"
        if n == 4 and path[2] == "delta" and path[3] == "role":
            return "G008"
        if n == 6 and path[3] == "tool_calls" and path[5] == "index":
            return (
                "I001" if _value_at(obj, path[:5]) is not None and _missing(obj, path) else "I002"
            )
    return "J003"


def _message(code: str, path: list[str | int], obj: Any, raw: str) -> str:
    """Say what is wrong in the grammar's words; the validator's wording for the rest."""
    value = _value_at(obj, path)
    missing = _missing(obj, path)
    if code == "N003":
        to = NATIVE_FINISH.get(value) if isinstance(value, str) else None
        hint = f"; map it to {to!r}" if to else ""
        return f"native finish_reason {value!r}{hint}"
    if code == "F006":
        return f"finish_reason {value!r} is not stop, length, tool_calls or content_filter"
    if code == "G001":
        if missing:
            return "no `object` field; it must be 'chat.completion.chunk'"
        return f"object is {value!r}, not 'chat.completion.chunk'"
    if code == "I001":
        return "a tool-call delta without `index`"
    if code == "I002":
        return f"tool-call index {value!r} is not an integer >= 0"
    if code == "G008":
        return f"role {value!r}, not 'assistant'"
    if code == "E001":
        return f"error frame without a string error.message ({raw})"
    if code == "U002":
        return f"the usage chunk's choices must be [] ({raw})"
    return raw


def _missing(obj: Any, path: list[str | int]) -> bool:
    parent = _value_at(obj, path[:-1])
    return isinstance(parent, dict) and path[-1] not in parent
