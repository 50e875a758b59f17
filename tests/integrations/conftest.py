"""The user's repository the integrations run in (the pre-commit hook, the GitHub Action;
each in its own file, so the two slow runs go to two test workers)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT

CASES = ROOT / "tests" / "cases"
GOOD = CASES / "pass" / "comment-after-done" / "stream.sse"
BAD = CASES / "fail" / "F001-finish-missing" / "stream.sse"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A user's repository with a good and a bad stream, and a JSON file that is no stream."""
    repo = tmp_path / "project"
    (repo / "streams").mkdir(parents=True)
    shutil.copy(GOOD, repo / "streams" / "good.sse")
    shutil.copy(BAD, repo / "streams" / "bad.sse")
    (repo / "data.jsonl").write_text('{"not": "a stream"}\n')
    git(repo, "init", "-q")
    git(repo, "add", ".")
    return repo
