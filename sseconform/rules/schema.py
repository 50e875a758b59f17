"""The JSON Schemas in ``schemas/``, compiled once, and their violations where they are.

jsonschema-rs validates a chunk in well under a microsecond (the pure-Python ``jsonschema`` takes
~100x the JSON parse), so every frame is validated; ``jsonschema`` stays the reference in tests.
Only a failing frame pays for collecting errors. A violation at a place a specific rule owns
(``object``, a tool-call ``index``, ``finish_reason``, ``role``, ``error.message``) is claimed
by that rule (``Hooks.claims``, in its module), so one fault gives one diagnostic; any other is
J003 with its JSON pointer.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema_rs

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
    """One violation: where (its instance path, and as a JSON pointer) and the validator's
    words."""

    path: tuple[str | int, ...]
    pointer: str
    message: str


def pointer_of(path: list[str | int]) -> str:
    """RFC 6901 pointer from an instance path."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def error_path(err: Any) -> list[str | int]:
    """Where a validation error is: its instance path, and for a missing property that
    property (so the pointer names the field that should be there)."""
    path: list[str | int] = list(err.instance_path)
    keyword = err.schema_path[-1] if err.schema_path else ""
    prop = getattr(err.kind, "property", None) if keyword == "required" else None
    return [*path, prop] if isinstance(prop, str) else path


def value_at(obj: Any, path: tuple[str | int, ...] | list[str | int]) -> Any:
    """The value at ``path`` in ``obj`` (None where there is none)."""
    for p in path:
        try:
            obj = obj[p]
        except (KeyError, IndexError, TypeError):
            return None
    return obj


def missing_at(obj: Any, path: tuple[str | int, ...]) -> bool:
    """True when the last key of ``path`` is absent from an object that is there."""
    parent = value_at(obj, path[:-1])
    return isinstance(parent, dict) and path[-1] not in parent


def violations(name: str, obj: Any) -> Iterator[SchemaViolation]:
    """Every violation of schema ``name`` by ``obj``. A value nested past what the validator
    walks is one violation for the frame (at its root), not an exception."""
    try:
        errors = list(validator(name).iter_errors(obj))
    except (ValueError, RecursionError) as exc:
        yield SchemaViolation((), "", f"the frame is nested too deeply to validate ({exc})")
        return
    for err in errors:
        full = tuple(error_path(err))
        yield SchemaViolation(full, pointer_of(list(full)), str(err.message))
