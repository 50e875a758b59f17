"""Fixtures for the command-line tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A current directory whose pyproject.toml has no [tool.sseconform]: no stray settings."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    return tmp_path
