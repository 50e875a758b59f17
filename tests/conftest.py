"""Shared fixtures: where the cases and the real-stream corpus live."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases"
REAL_STREAMS = ROOT.parent / "shared" / "real-streams"


@pytest.fixture
def real_streams() -> Path:
    if not (REAL_STREAMS / "MANIFEST.tsv").is_file():
        pytest.skip("../shared/real-streams is not present")
    return REAL_STREAMS
