"""Running a whole CLI as a matrix client: a bare environment on the loopback, one bounded run,
its JSON lines, and runs of one client two at a time. Shared by every heavy client's module."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from tests.interop.matrix.clients import Job
from tests.interop.matrix.outcome import Got
from tests.interop.matrix.server import MockServer

TIMEOUT = 120  # seconds for one CLI run; one takes well under a second on loopback
#: Runs of one client at a time: a run is mostly a CLI loading, so two keep both cores busy.
RUNS_AT_ONCE = 2


def cli_env(home: Path, extra: dict[str, str]) -> dict[str, str]:
    """A bare environment: PATH, a temp HOME, loopback without a proxy, and ``extra``."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "TMPDIR": str(home),
        "NO_PROXY": "127.0.0.1",
        "no_proxy": "127.0.0.1",
        **extra,
    }


def run_cli(
    argv: Sequence[str], cwd: Path, env: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    """One CLI run: no stdin, its output captured as text, bounded by :data:`TIMEOUT`."""
    return subprocess.run(
        list(argv),
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def json_lines(stdout: str) -> list[dict[str, Any]]:
    """The JSON objects a CLI printed one per line (other lines skipped)."""
    out = []
    for line in stdout.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            out.append(obj)
    return out


def route_key(url: str) -> str:
    """A case's key on the matrix server, from its route's URL."""
    return url.rsplit("/k/", 1)[1]


def at_once(
    one: Callable[[Job, MockServer], Got], jobs: Sequence[Job], server: MockServer, name: str
) -> dict[str, Got]:
    """Each job's run, :data:`RUNS_AT_ONCE` at a time (each case has its own route on the
    server and its own HOME): a run is mostly a CLI loading, so two keep both cores busy."""
    with ThreadPoolExecutor(RUNS_AT_ONCE, thread_name_prefix=name) as pool:
        got = list(pool.map(lambda job: one(job, server), jobs))
    return {job.case.id: g for job, g in zip(jobs, got, strict=True)}
