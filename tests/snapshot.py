"""Snapshot files: compare what users see with a reviewed copy, or rewrite it on request.

SSECONFORM_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/...
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest

UPDATE = os.environ.get("SSECONFORM_UPDATE_SNAPSHOTS") == "1"


def compare(path: Path, actual: str) -> None:
    """Fail with a diff when ``actual`` differs from the snapshot at ``path``."""
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as fp:
            fp.write(actual)
        return
    if not path.is_file():
        pytest.fail(f"no snapshot {path.name}; create it with SSECONFORM_UPDATE_SNAPSHOTS=1")
    with open(path, encoding="utf-8", newline="") as fp:
        expected = fp.read()
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(keepends=True),
            actual.splitlines(keepends=True),
            f"snapshots/{path.name}",
            "actual",
        )
        pytest.fail(
            "output differs from its snapshot (SSECONFORM_UPDATE_SNAPSHOTS=1 rewrites it):\n"
            + "".join(diff)
        )
