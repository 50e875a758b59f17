"""Helpers for the command-line ``inspect`` tests (test_cli_inspect, test_tmux): the real
command line, and streams built to order.

- :func:`sseconform` / :func:`spawn` run the venv's ``sseconform`` console script (the entry
  point a user runs) in a subprocess, without a terminal, with ``COLUMNS=100``;
- :func:`chunk` / :func:`tool_call_reads` build ``chat.completion.chunk`` bodies, and
  :func:`pretty_args` / :func:`pending_closers` are independent oracles for what the view
  must show of a call's arguments (pretty-printed lines, and what would close a prefix).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests import forked
from tests.cli.helpers import popen_interruptible

ROOT = Path(__file__).resolve().parents[2]
RECORDINGS = ROOT / "recordings"
ANTHROPIC_CALL = RECORDINGS / "anthropic" / "tool-call-anthropic.jsonl"
GATEWAY_BUGS = RECORDINGS / "gateway-bugs" / "anthropic-tool-call.jsonl"
PARALLEL = RECORDINGS / "chat" / "parallel-tool-calls.jsonl"
HOST = "127.0.0.1"
KEY_VARS = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY")


def executable() -> list[str]:
    """The console script next to this interpreter (the venv's), else ``python -m``."""
    script = Path(sys.executable).with_name("sseconform")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    return [sys.executable, "-m", "sseconform"]


def command(*args: str | os.PathLike[str]) -> list[str]:
    return [*executable(), *(os.fspath(a) for a in args)]


def cli_env(**extra: str) -> dict[str, str]:
    """No provider keys, proxies, debug switch or tmux; no colours; 100 columns."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in KEY_VARS
        and k not in ("SSECONFORM_DEBUG", "TMUX", "TMUX_PANE", "LINES")
        and "proxy" not in k.lower()
    }
    env.update(NO_COLOR="1", COLUMNS="100", NO_PROXY=f"{HOST},localhost")
    env.update(extra)
    return env


@dataclass(frozen=True, slots=True)
class Run:
    code: int
    out: str
    err: str
    seconds: float = 0.0


def _run(out: bytes, err: bytes, code: int, seconds: float) -> Run:
    run = Run(code, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), seconds)
    assert "Traceback" not in run.out + run.err, (run.out + run.err)[-3000:]
    assert "internal error" not in run.err, run.err
    return run


def sseconform(
    *args: str | os.PathLike[str],
    cwd: Path,
    stdin: bytes | None = None,
    timeout: float = 60,
) -> Run:
    """Run the command with no terminal; never lets a traceback or an internal error through."""
    start = time.monotonic()
    proc = forked.run(
        command(*args),
        cwd=cwd,
        env=cli_env(),
        stdin=stdin,
        timeout=timeout,
    )
    return _run(proc.stdout, proc.stderr, proc.returncode, time.monotonic() - start)


def spawn(
    *args: str | os.PathLike[str], cwd: Path, stdin: int | None = subprocess.DEVNULL
) -> subprocess.Popen[bytes]:
    """Start the command with SIGINT deliverable (not inherited as ignored)."""
    return popen_interruptible(command(*args), cwd=cwd, env=cli_env(), stdin=stdin)


def finish(proc: subprocess.Popen[bytes], timeout: float = 30) -> Run:
    """Wait for a spawned run (kill it if it hangs); asserts there is no traceback."""
    start = time.monotonic()
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return _run(out, err, proc.returncode, time.monotonic() - start)


def wait_for(pred: Callable[[], bool], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


def has_open(pid: int, path: Path) -> bool:
    """Whether process ``pid`` holds ``path`` open (Linux /proc; True where there is none)."""
    fds = Path(f"/proc/{pid}/fd")
    if not Path("/proc/self/fd").is_dir():
        return True
    target = str(path.resolve())
    try:
        names = os.listdir(fds)
    except OSError:
        return False
    for name in names:
        try:
            if os.readlink(fds / name) == target:
                return True
        except OSError:
            continue
    return False


# -- streams built to order ---------------------------------------------------------------------


def chunk(delta: dict[str, Any], finish: str | None = None, *, cid: str = "chatcmpl-t1") -> bytes:
    """One ``data:`` event holding one ``chat.completion.chunk``."""
    obj = {
        "id": cid,
        "object": "chat.completion.chunk",
        "created": 1_700_000_000,
        "model": "gpt-test",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n\n"


def fragments(text: str, sizes: tuple[int, ...] = (4, 5, 6)) -> list[str]:
    """``text`` cut into pieces of the given sizes, in turn."""
    out: list[str] = []
    i = n = 0
    while i < len(text):
        k = sizes[n % len(sizes)]
        out.append(text[i : i + k])
        i += k
        n += 1
    return out


#: Arguments whose pretty print has short lines (they fit the view's arguments column).
ARGS: dict[str, Any] = {
    "query": "forecast for the coast",
    "cities": ["Lisbon", "Porto", "Faro", "Coimbra", "Braga", "Evora"],
    "options": {"unit": "celsius", "days": 7, "hourly": True, "alerts": False},
    "limits": {"max_results": 12, "min_score": 0.25, "cursor": None},
    "note": "arguments arrive in small pieces",
}
ARGS_TEXT = json.dumps(ARGS)  # separators ", " and ": ", as most providers send them
CALL_ID = "call_slowArgs01"
CALL_NAME = "get_forecast"


def tool_call_reads(
    frags: list[str], *, step: float = 0.06, start: float = 0.05
) -> list[tuple[float, bytes]]:
    """A conforming tool-call stream: the call's head, one chunk per fragment ``step`` s
    apart, the finish chunk and ``[DONE]``."""
    head = chunk(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "index": 0,
                    "id": CALL_ID,
                    "type": "function",
                    "function": {"name": CALL_NAME, "arguments": ""},
                }
            ],
        }
    )
    reads = [(start, head)]
    t = start
    for f in frags:
        t += step
        reads.append(
            (round(t, 6), chunk({"tool_calls": [{"index": 0, "function": {"arguments": f}}]}))
        )
    t += step
    reads.append((round(t, 6), chunk({}, "tool_calls") + b"data: [DONE]\n\n"))
    return reads


def pretty_args(args: Any) -> list[str]:
    """The pretty print a complete call's arguments must show (two-space indent)."""
    return json.dumps(args, indent=2, ensure_ascii=False).splitlines()


_LITERALS = ("true", "false", "null")


def pending_closers(prefix: str) -> str:
    """What would close a JSON prefix where it stands: the rest of an open string or literal,
    then the open containers' closers, innermost first (an oracle written apart from the
    product's parser)."""
    stack: list[str] = []
    in_string = escape = False
    for ch in prefix:
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            stack.append(ch)
        elif ch in "]}":
            stack.pop()
    head = ""
    if in_string:
        head = '"'
    else:
        m = re.search(r"[a-z]+$", prefix)
        if m:
            for lit in _LITERALS:
                if lit.startswith(m.group()) and lit != m.group():
                    head = lit[len(m.group()) :]
    return head + "".join("}" if c == "{" else "]" for c in reversed(stack))


# -- reading the screen -------------------------------------------------------------------------


def header(screen: str) -> str:
    """The header panel's text, its lines joined, runs of spaces folded to one."""
    lines = screen.splitlines()
    start = next((i for i, line in enumerate(lines) if "sseconform inspect \u2500" in line), None)
    if start is None:
        return ""
    body: list[str] = []
    for line in lines[start + 1 :]:
        if line.lstrip().startswith("\u2570"):
            break
        body.append(line.strip().strip("\u2502"))
    return " ".join(" ".join(body).split())


@dataclass(frozen=True, slots=True)
class CallRow:
    """One row of the tool-call table: its cells, line by line (trailing spaces dropped)."""

    index: str
    ident: list[str]
    status: list[str]
    args: list[str]


def call_rows(screen: str) -> list[CallRow]:
    """The rows of the first tool-call table on the screen."""
    rows: list[CallRow] = []
    cells: list[list[str]] | None = None
    inside = False
    for line in screen.splitlines():
        s = line.strip()
        if s.startswith("\u2521"):  # ┡ under the column titles
            inside = True
            cells = [[], [], [], []]
            continue
        if not inside:
            continue
        if s.startswith(("\u251c", "\u2514")):  # ├ between rows, └ at the end
            assert cells is not None
            rows.append(_row(cells))
            cells = [[], [], [], []]
            if s.startswith("\u2514"):
                break
            continue
        parts = s.split("\u2502")
        if len(parts) == 6:
            assert cells is not None
            for i in range(4):
                cells[i].append(parts[i + 1].rstrip())
    return rows


def _row(cells: list[list[str]]) -> CallRow:
    def trim(col: list[str]) -> list[str]:
        col = list(col)
        while col and not col[-1].strip():
            col.pop()
        return col

    idx = "".join(c.strip() for c in cells[0])
    ident = [c.strip() for c in trim(cells[1])]
    status = [c.strip() for c in trim(cells[2])]
    args = [c[1:] if c.startswith(" ") else c for c in trim(cells[3])]
    return CallRow(idx, ident, status, args)


def diagnostic_codes(screen: str) -> list[str]:
    """The codes in the diagnostics pane, in the order shown."""
    codes: list[str] = []
    inside = False
    for line in screen.splitlines():
        if re.match(r"^diagnostics \(\d+[,)]", line):
            inside = True
            continue
        if inside:
            if line.startswith("events ("):
                break
            m = re.match(r"^ ([A-Z]\d{3}) ", line)
            if m:
                codes.append(m.group(1))
    return codes


@dataclass(frozen=True, slots=True)
class EventRow:
    frame: int
    t: float
    rest: str


def event_rows(screen: str) -> list[EventRow]:
    rows: list[EventRow] = []
    inside = False
    for line in screen.splitlines():
        if line.startswith("events ("):
            inside = True
            continue
        if inside:
            if "timeline" in line:
                break
            m = re.match(r"^\s+(\d+)\s+(\d+\.\d{3})\s+(.*?)\s*$", line)
            if m:
                rows.append(EventRow(int(m.group(1)), float(m.group(2)), m.group(3)))
    return rows
