"""The pre-commit hook (``.pre-commit-hooks.yaml``), tried with ``pre-commit try-repo`` as a
team that adds it to its repository would."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT
from tests.integrations.conftest import git

PRE_COMMIT = Path(sys.executable).with_name("pre-commit")


def test_hook_definition() -> None:
    [hook] = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hook["id"] == "sseconform-check" and hook["entry"] == "sseconform check"
    files = re.compile(hook["files"])
    assert files.search("streams/a.sse") and files.search("recordings/x/a.jsonl")
    assert not files.search("data.jsonl") and not files.search("a.sse.txt")


@pytest.mark.skipif(not PRE_COMMIT.is_file(), reason="pre-commit is a dev dependency")
def test_hook_with_pre_commit_try_repo(project: Path, tmp_path: Path) -> None:
    if not (ROOT / ".git").exists():
        pytest.skip("try-repo needs this project as a git repository")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    run = subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(ROOT), "sseconform-check", "--all-files"],
        cwd=project, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    out = run.stdout + run.stderr
    assert run.returncode == 1, out  # bad.sse fails the hook
    assert "streams/bad.sse:9: F001 error finish-missing" in out
    assert "data.jsonl" not in out.split("sseconform check", 1)[-1]  # not a stream: not given
    (project / "streams" / "bad.sse").unlink()
    git(project, "add", "-A")
    run = subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(ROOT), "sseconform-check", "--all-files"],
        cwd=project, env=env, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
