"""The schemas: valid Draft 2020-12, and the compiled validator agrees with the reference.

jsonschema-rs does the checking at stream speed; the pure-Python `jsonschema` package is the
reference. Both must give the same verdict and the same instance pointers on every frame of
every case and of the real-stream corpus.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest

from sseconform.rules.schema import (
    CHUNK,
    ERROR,
    LOAD_REPORT,
    SCHEMA_NAMES,
    USAGE,
    load_schema,
    pointer_of,
    schema_dir,
    validator,
    violations,
)
from sseconform.sse import decode_all
from tests.conftest import CASES, REAL_STREAMS


def _kind(obj: dict[str, Any]) -> str:
    if "error" in obj and obj.get("choices") is None:
        return ERROR
    if obj.get("usage") is not None and not obj.get("choices"):
        return USAGE
    return CHUNK


def _frames(paths: list[Path]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path in paths:
        events, _ = decode_all(path.read_bytes())
        for ev in events:
            try:
                obj = orjson.loads(ev.data)
            except orjson.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                yield f"{path.name}#{ev.frame}", obj


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_schema_is_valid_draft_2020_12(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(load_schema(name))


def test_schemas_live_at_top_level() -> None:
    assert schema_dir().name == "schemas"
    assert sorted(p.name for p in schema_dir().glob("*.schema.json")) == sorted(
        f"{n}.schema.json" for n in (*SCHEMA_NAMES, LOAD_REPORT)
    )


def test_usage_definition_is_the_same_in_both_chunk_schemas() -> None:
    assert load_schema(CHUNK)["$defs"]["usage"] == load_schema(USAGE)["$defs"]["usage"]


def _agree(frames: Iterator[tuple[str, dict[str, Any]]]) -> int:
    ref = {n: jsonschema.Draft202012Validator(load_schema(n)) for n in SCHEMA_NAMES}
    n = 0
    for where, obj in frames:
        kind = _kind(obj)
        fast_ok = validator(kind).is_valid(obj)
        ref_errors = list(ref[kind].iter_errors(obj))
        assert fast_ok == (not ref_errors), (where, kind, [e.message for e in ref_errors])
        if ref_errors:
            ref_ptrs = {pointer_of(list(e.absolute_path)) for e in ref_errors}
            fast_ptrs = {
                pointer_of(list(e.instance_path)) for e in validator(kind).iter_errors(obj)
            }
            assert fast_ptrs == ref_ptrs, where
            assert list(violations(kind, obj)), where
        n += 1
    return n


def test_validators_agree_on_case_frames() -> None:
    paths = sorted(CASES.glob("*/*/stream.sse"))
    assert _agree(_frames(paths)) > 300


def test_validators_agree_on_the_corpus() -> None:
    if not (REAL_STREAMS / "MANIFEST.tsv").is_file():
        pytest.skip("../shared/real-streams is not present")
    paths = sorted(REAL_STREAMS.rglob("*.sse"))
    assert _agree(_frames(paths)) > 1000


def test_schema_files_are_plain_json() -> None:
    for p in schema_dir().glob("*.json"):
        json.loads(p.read_text(encoding="utf-8"))
