"""The gating quick start (docs/gating/quickstart.md) runs as printed: each of its command
blocks, in order, in a folder of its own, with only its ports moved to free ones (so that
parallel runs cannot collide) and ``.venv/bin/sseconform`` the one under test. What the page
shows of each command's output is in that output (times and ids aside), and each command
ends with the exit code the page gives. README's five-minute block is the quick start's,
line for line; the install line is README's first command, which ``.ci/run`` runs verbatim.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.cli.helpers import cli_env, popen_interruptible, venv_shim
from tests.conftest import ROOT
from tests.gate.real import free_port, listening

PAGE = ROOT / "docs" / "gating" / "quickstart.md"
INSTALL = "python3 -m venv .venv && .venv/bin/pip install ."
PORTS = ("4000", "4001", "9100", "9101")


def _blocks(text: str, lang: tuple[str, ...]) -> list[str]:
    """The fenced blocks of these languages, in order (an indented block too)."""
    fences = re.finditer(r"^( *)```(\w*)\n(.*?)^\1```$", text, re.M | re.S)
    return [
        "\n".join(line.removeprefix(m.group(1)) for line in m.group(3).splitlines())
        for m in fences
        if m.group(2) in lang
    ]


def _commands(text: str) -> list[str]:
    return [line for b in _blocks(text, ("bash", "sh")) for line in b.splitlines() if line]


def _normal(text: str) -> str:
    """Times, ids and ports vary from run to run."""
    text = re.sub(r"\d+\.\d+ s\b", "N s", text)
    text = re.sub(r"msg_\w+", "msg_ID", text)
    text = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", text)
    return re.sub(r"--upstream-port \d+", "--upstream-port PORT", text)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A clone's folder as the page assumes it: ``.venv/bin/sseconform`` runs the tool."""
    return venv_shim(tmp_path)


def test_readme_s_five_minutes_are_the_quick_start_s_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Gate a gateway in five minutes", 1)[1].split("\n## ", 1)[0]
    mine = _commands(section)
    assert len(mine) == 4
    assert set(mine) <= set(_commands(PAGE.read_text(encoding="utf-8")))
    assert readme.split("```sh\n", 1)[1].startswith(INSTALL), "README's first command moved"


def test_the_quick_start_runs_as_printed(folder: Path) -> None:
    page = PAGE.read_text(encoding="utf-8")
    commands = _commands(page)
    assert commands[0] == INSTALL
    moved = {p: str(free_port()) for p in PORTS}

    def ported(line: str) -> str:
        for old, new in moved.items():
            line = line.replace(f":{old}", f":{new}").replace(f"port {old}", f"port {new}")
        return line

    env = {**cli_env(), "PATH": f"{folder / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    background: list[subprocess.Popen[bytes]] = []
    gates: list[str] = []
    ran: dict[str, subprocess.CompletedProcess[str]] = {}
    try:
        for line in commands[1:]:
            if line.endswith(" &"):  # a gateway the page starts in the background
                proc = popen_interruptible(
                    ["sh", "-c", "exec " + ported(line[:-2])], cwd=folder, env=env
                )
                background.append(proc)
                port = int(re.search(r"--port (\d+)", ported(line)).group(1))  # type: ignore[union-attr]
                for _ in range(200):
                    if listening(port) or proc.poll() is not None:
                        break
                    time.sleep(0.05)
                assert listening(port), line
            elif " gate --gateway " in line:
                gates.append(line)  # the two gates run side by side: they share nothing
            else:
                ran[line] = _sh(ported(line), folder, env)
        with ThreadPoolExecutor(len(gates)) as pool:
            done = pool.map(lambda g: _sh(ported(g), folder, env), gates)
            ran.update(zip(gates, done, strict=True))
    finally:
        banners = []
        for proc in background:
            proc.send_signal(signal.SIGINT)
            out, _err = proc.communicate(timeout=10)
            banners.append(out.decode())
    first, second = gates
    assert ran[first].returncode == 0, ran[first].stdout[-3000:]
    assert ran[second].returncode == 1, ran[second].stdout[-3000:]
    assert all(r.returncode == 0 for c, r in ran.items() if c not in gates), ran
    said = _normal("\n".join([*banners, *(r.stdout + r.stderr for r in ran.values())]))
    shown = [
        _normal(line.rstrip())
        for block in _blocks(page, ("text",))
        for line in block.splitlines()
        if line.strip() and line.strip() != "..."
    ]
    lines = {line.rstrip() for line in said.splitlines()}
    missing = [line for line in shown if line not in lines]
    assert missing == [], missing
    assert (folder / "second-gate.html").is_file()
    assert (folder / "litellm.yaml").read_text().startswith("model_list:")
    # README's diff example reads the second gate's recording: run it here, as printed
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [diff] = [line for line in readme.splitlines() if " diff recordings/anthropic/max-" in line]
    (folder / "recordings").symlink_to(ROOT / "recordings")
    differ = _sh(diff.split("  #", 1)[0], folder, env)
    assert differ.returncode == 1, differ.stdout + differ.stderr  # a difference: exit 1
    assert "finish_reason: changed: finish_reason 'stop', the upstream's maps to 'length'" in (
        differ.stdout
    )
    assert "timing (s): upstream_first_token_s" in differ.stdout


def _sh(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["sh", "-c", line], cwd=cwd, env=env, capture_output=True, text=True, timeout=300,
        check=False,
    )  # fmt: skip
