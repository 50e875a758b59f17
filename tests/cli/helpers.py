"""Run the real command line in a subprocess, the way a user or a CI job runs it."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests import forked


@dataclass(frozen=True, slots=True)
class Run:
    """What one run of ``sseconform`` gave: exit code, standard output, standard error."""

    code: int
    out: str
    err: str

    @property
    def both(self) -> str:
        return self.out + self.err


def cli_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "SSECONFORM_DEBUG"}
    env.update(NO_COLOR="1", COLUMNS="100")
    return env


def run_cli(
    *args: str | os.PathLike[str],
    cwd: Path,
    stdin: bytes | None = None,
    timeout: float = 120,
    env: dict[str, str] | None = None,
) -> Run:
    """Run ``python -m sseconform ARGS`` in ``cwd``; never lets a traceback through.
    ``env`` replaces the environment (colour off, 100 columns) when a test is about it."""
    proc = forked.run(
        [sys.executable, "-m", "sseconform", *(os.fspath(a) for a in args)],
        cwd=cwd,
        env=cli_env() if env is None else {**env, "COLUMNS": "100"},
        stdin=stdin,
        timeout=timeout,
    )
    run = Run(
        proc.returncode,
        proc.stdout.decode("utf-8", "replace"),
        proc.stderr.decode("utf-8", "replace"),
    )
    assert "Traceback" not in run.both, run.both[-3000:]
    return run


def popen_interruptible(
    cmd: list[str], *, cwd: Path, env: dict[str, str], stdin: int | None = subprocess.DEVNULL
) -> subprocess.Popen[bytes]:
    """Start ``cmd`` with SIGINT deliverable: under a runner that ignores SIGINT the child
    would inherit the ignore (a caught signal is reset on exec; an ignored one stays)."""
    old = signal.getsignal(signal.SIGINT)
    ignored = old is signal.SIG_IGN
    if ignored:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        return subprocess.Popen(
            cmd, cwd=cwd, env=env, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
    finally:
        if ignored:
            signal.signal(signal.SIGINT, old)


def venv_shim(folder: Path) -> Path:
    """``folder/.venv/bin/sseconform`` as README's install leaves it, running the tree under
    test (so a page's or README's commands run as printed); returns ``folder``."""
    root = Path(__file__).resolve().parents[2]
    shim = folder / ".venv" / "bin" / "sseconform"
    shim.parent.mkdir(parents=True)
    shim.write_text(
        f'#!/bin/sh\nPYTHONPATH="{root}${{PYTHONPATH:+:$PYTHONPATH}}" '
        f'exec "{sys.executable}" -m sseconform "$@"\n'
    )
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    return folder
