"""README's "One example per command" runs as printed: each line in a folder laid out as the
clone (``recordings/`` in place, ``.venv/bin/sseconform`` the tool under test), with the exit
code it must have. A line that needs what a test cannot have here (a provider's key, a
gateway listening on its port, a server left running) names the test that runs it instead;
a new line must be run here or named there."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.cli.helpers import cli_env, venv_shim
from tests.conftest import ROOT

#: The lines run elsewhere (a start of the line -> where, and why not here).
ELSEWHERE = {
    ".venv/bin/sseconform record --provider anthropic": "a provider's key and the network: "
    "tests/record/ records against a replay upstream on 127.0.0.1",
    ".venv/bin/sseconform replay recordings/chat/": "a server that serves until stopped: "
    "tests/replay/test_server.py",
    ".venv/bin/sseconform gate --gateway http://127.0.0.1:4000 --gateway-profile litellm": (
        "a LiteLLM listening on port 4000: tests/gate/test_profile_pages.py runs its page's block"
    ),
    ".venv/bin/sseconform diff recordings/anthropic/max-tokens-anthropic.jsonl second-gate/": (
        "the quick start's second gate first: tests/test_quickstart.py runs it after the gates"
    ),
    ".venv/bin/sseconform load --gateway http://127.0.0.1:4000": "a gateway on port 4000 "
    "under load for a minute: tests/load/ runs load against the demo gateway",
}
#: The exit code each line run here must end with (the gateway-bugs recording fails).
EXIT = {".venv/bin/sseconform check recordings/gateway-bugs": 1}


def examples() -> list[str]:
    """The lines of README's "One example per command" block, their comments left out."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## One example per command", 1)[1].split("```sh\n", 1)[1]
    lines = block.split("\n```", 1)[0].splitlines()
    return [line for line in lines if line.strip()]


def _elsewhere(line: str) -> str | None:
    return next((why for start, why in ELSEWHERE.items() if line.startswith(start)), None)


def test_every_line_is_run_here_or_named_elsewhere() -> None:
    lines = examples()
    assert len(lines) >= 9
    named = [start for start in ELSEWHERE if not any(line.startswith(start) for line in lines)]
    assert named == [], "ELSEWHERE names a line README no longer has"


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """A folder as README assumes it: the clone's recordings, the tool in ``.venv``."""
    (tmp_path / "recordings").symlink_to(ROOT / "recordings")
    return venv_shim(tmp_path)


@pytest.mark.parametrize("line", [x for x in examples() if _elsewhere(x) is None])
def test_the_example_runs_as_printed(clone: Path, line: str) -> None:
    env = {**cli_env(), "PATH": f"{clone / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    run = subprocess.run(
        ["sh", "-c", line], cwd=clone, env=env, capture_output=True, text=True, timeout=120,
        check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    want = next((code for start, code in EXIT.items() if line.startswith(start)), 0)
    assert run.returncode == want, (line, run.stdout[-2000:], run.stderr[-2000:])
    assert "Traceback" not in run.stdout + run.stderr
    assert run.stdout.strip(), line  # every example shows something
