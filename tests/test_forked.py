"""The tests' forked command line (``tests/forked.py``) gives what a new interpreter gives:
the same exit code, standard output and standard error, for commands that read files,
standard input, the working directory and the environment; a timeout kills the child."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import forked
from tests.conftest import ROOT

MODULE = [sys.executable, "-m", "sseconform"]
CHAT = ROOT / "recordings" / "chat"
BUGS = ROOT / "recordings" / "gateway-bugs"
BODY = b'data: {"id":"c","object":"chat.completion.chunk","choices":[]}\n\n'

CASES: list[tuple[str, list[str], bytes | None, dict[str, str]]] = [
    ("check-ok", ["check", str(CHAT)], None, {}),
    ("check-json", ["check", str(BUGS), "--format", "json"], None, {}),
    ("relative-path", ["check", "recordings/chat"], None, {}),
    ("stdin", ["check", "-"], BODY, {}),
    ("inspect-stdin", ["inspect", "--no-live", "-"], BODY, {}),
    ("unknown-command", ["nosuch"], None, {}),
    ("version", ["--version"], None, {}),
    ("help", ["rule", "--help"], None, {}),
    ("colour-forced", ["check", str(BUGS)], None, {"FORCE_COLOR": "1", "NO_COLOR": ""}),
    ("debug-env", ["check", str(ROOT / "nothing-here")], None, {"SSECONFORM_DEBUG": ""}),
]


@pytest.mark.parametrize(("name", "args", "stdin", "extra"), CASES, ids=[c[0] for c in CASES])
def test_a_fork_gives_what_a_new_interpreter_gives(
    name: str, args: list[str], stdin: bytes | None, extra: dict[str, str]
) -> None:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "100", **extra}
    env = {k: v for k, v in env.items() if v}
    argv = [*MODULE, *args]
    forked_run = forked.run(argv, cwd=ROOT, env=env, stdin=stdin, timeout=60)
    fresh = subprocess.run(
        argv, cwd=ROOT, env=env, input=stdin, capture_output=True, timeout=60, check=False,
        stdin=subprocess.DEVNULL if stdin is None else None,
    )  # fmt: skip
    assert forked_run.returncode == fresh.returncode, (forked_run, fresh)
    assert forked_run.stdout == fresh.stdout
    assert forked_run.stderr == fresh.stderr


def test_an_interpreter_setting_in_the_environment_gets_a_new_interpreter(tmp_path: Path) -> None:
    """PYTHON* and the locale shape the interpreter's start: such a run is not forked."""
    env = {**os.environ, "PYTHONWARNINGS": "error::DeprecationWarning"}
    assert not forked._forkable(env)
    got = forked.run([*MODULE, "--version"], cwd=tmp_path, env=env, stdin=None, timeout=60)
    assert got.returncode == 0 and got.stdout.startswith(b"sseconform ")


def test_a_timeout_kills_the_child(tmp_path: Path) -> None:
    fifo = tmp_path / "never"
    os.mkfifo(fifo)  # opened for reading, it waits for a writer that never comes
    with pytest.raises(subprocess.TimeoutExpired):
        forked.run([*MODULE, "check", str(fifo)], cwd=tmp_path, env=None, stdin=None, timeout=1)
    # the server goes on: the next command runs
    got = forked.run([*MODULE, "--version"], cwd=tmp_path, env=None, stdin=None, timeout=60)
    assert got.returncode == 0
