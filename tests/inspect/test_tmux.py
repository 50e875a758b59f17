"""The live view in a real terminal: the real command inside a tmux session of a fixed size,
read back with ``tmux capture-pane`` while the stream arrives.

Each test has its own tmux server (``-S``, a socket in a temporary directory), killed
when the test ends. Screens are polled
with deadlines; a screen is judged only once two captures in a row agree (so it is never a
frame half drawn). Skipped when tmux is not on PATH.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from sseconform.recording.format import RecordingReader, Response, write_recording
from sseconform.replay.plan import load
from sseconform.replay.server import ReplayServer
from tests.inspect.cli_support import (
    ARGS,
    ARGS_TEXT,
    CALL_ID,
    CALL_NAME,
    HOST,
    CallRow,
    call_rows,
    chunk,
    cli_env,
    command,
    fragments,
    header,
    pending_closers,
    pretty_args,
    tool_call_reads,
)

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not on PATH")

CURSOR = "\u258c"
FRAGS = fragments(ARGS_TEXT)
OK = Response(200, "OK", "HTTP/1.1", [("content-type", "text/event-stream")])


class Tmux:
    """One detached session on a private tmux server, running one shell script."""

    def __init__(self, tag: str) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="sseconform-tmux-"))  # short: a socket path
        self.socket = str(self.dir / "s")
        self.name = f"inspect-{tag}"
        env = cli_env()
        for k in ("COLUMNS", "LINES"):  # the size comes from the terminal
            env.pop(k, None)
        env.update(LANG="C.UTF-8", LC_ALL="C.UTF-8")
        self.env = env
        self.started = False

    def _tmux(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(
            ["tmux", "-S", self.socket, *args],
            capture_output=True,
            env=self.env,
            timeout=10,
            check=False,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"tmux {args[0]}: {proc.stderr.decode(errors='replace')}")
        return proc.stdout.decode("utf-8", "replace")

    def start(self, cwd: Path, argv: list[str], *, width: int = 100, height: int = 50) -> None:
        """Run ``argv`` in the session; then print its exit code and linger."""
        script = cwd / f"{self.name}.sh"
        script.write_text(
            "trap : INT\n"  # Ctrl-C is for the command: the script goes on (a caught
            # signal is reset to the default in the command, so it still gets SIGINT)
            f"cd {shlex.quote(str(cwd))}\n"
            f"{shlex.join(argv)}\n"
            'echo "[exit $?]"\n'
            "sleep 30\n"
        )
        self._tmux(
            "-f",
            "/dev/null",
            "new-session",
            "-d",
            "-s",
            self.name,
            "-x",
            str(width),
            "-y",
            str(height),
            f"sh {shlex.quote(str(script))}",
        )
        self.started = True

    def capture(self) -> str:
        return self._tmux("capture-pane", "-p", "-t", self.name)

    def stable(self) -> str:
        """A screen that two captures in a row agree on."""
        last = self.capture()
        for _ in range(50):
            now = self.capture()
            if now == last:
                return now
            last = now
        return last

    def wait(self, pred: Callable[[str], bool], what: str, timeout: float = 10.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.stable()
            if pred(screen):
                return screen
            time.sleep(0.02)
        raise AssertionError(f"timed out waiting for {what}; the screen:\n{screen}")

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", self.name, *keys)

    def kill(self) -> None:
        if self.started:
            self._tmux("kill-server", check=False)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture
def tmux(request: pytest.FixtureRequest) -> Iterator[Tmux]:
    tag = re.sub(r"[^A-Za-z0-9]+", "-", request.node.name)[-40:]
    t = Tmux(tag)
    try:
        yield t
    finally:
        t.kill()


def _recording(path: Path, reads: list[tuple[float, bytes]]) -> Path:
    write_recording(path, reads, response=OK)
    return path


def _exited(screen: str) -> int | None:
    m = re.search(r"^\[exit (\d+)\]$", screen, re.M)
    return int(m.group(1)) if m else None


def _events(screen: str) -> int:
    m = re.search(r"events (\d+)", header(screen))
    assert m, screen
    return int(m.group(1))


def _check_mid_call(screen: str, fed: int) -> tuple[CallRow, str]:
    """A screen showing the call mid-reassembly, ``fed`` fragments in: the status, the size,
    the visible argument lines, the cursor and the closers still pending. Returns the call
    and the arguments received so far."""
    (call,) = call_rows(screen)
    assert call.ident == [CALL_ID, CALL_NAME], screen
    prefix = "".join(FRAGS[:fed])
    assert call.status[:3] == ["streaming", f"{len(prefix)} chars", f"{fed} frag."], screen
    *done, last = call.args
    # every finished line is a line of the final pretty print, and they follow each other
    final = pretty_args(ARGS)
    if done:
        at = [i for i in range(len(final)) if final[i : i + len(done)] == done]
        assert at, (done, screen)
    # the unfinished line: what arrived of it, the cursor, then what would close the value
    assert CURSOR in last, screen
    shown, tail = last.rstrip().split(CURSOR, 1)
    assert prefix.rstrip().endswith(shown.strip()), (shown, prefix)
    closers = pending_closers(prefix)
    assert tail == (" \u2026" + closers if closers else ""), (tail, closers, prefix)
    return call, prefix


def _check_final(screen: str) -> None:
    (call,) = call_rows(screen)
    assert call.status[:3] == ["complete", f"{len(ARGS_TEXT)} chars", f"{len(FRAGS)} frag."]
    final = pretty_args(ARGS)
    assert len(call.args) >= 3, screen
    assert call.args == final[-len(call.args) :], screen
    assert CURSOR not in screen
    assert "finish tool_calls, [DONE]" in header(screen)


def _watch_reassembly(tmux: Tmux) -> list[str]:
    """Follow the call while its arguments arrive; the stable screens seen mid-way."""
    seen: list[str] = []
    deadline = time.monotonic() + 12
    while time.monotonic() < deadline:
        screen = tmux.stable()
        head = header(screen)
        if _exited(screen) is not None or "state ended" in head:
            break
        rows = call_rows(screen) if "state streaming" in head else []
        if rows and rows[0].status and rows[0].status[0] == "streaming":
            seen.append(screen)
        time.sleep(0.03)
    return seen


def test_tool_call_arguments_reassemble_live(tmp_path: Path, tmux: Tmux) -> None:
    assert 55 <= len(FRAGS) <= 65 and all(4 <= len(f) <= 6 for f in FRAGS[:-1])
    rec = _recording(tmp_path / "slow-args.jsonl", tool_call_reads(FRAGS, step=0.06))
    tmux.start(tmp_path, command("inspect", rec))
    seen = _watch_reassembly(tmux)
    assert len(seen) >= 3, "the call was never seen mid-reassembly"
    fed_seen = set()
    in_string = False
    for screen in seen:
        fed = _events(screen) - 1  # the first chunk is the call's head, with no arguments
        assert 1 <= fed < len(FRAGS), screen
        _, prefix = _check_mid_call(screen, fed)
        fed_seen.add(fed)
        in_string |= pending_closers(prefix).startswith('"')
    assert len(fed_seen) >= 3  # it moved while we watched
    if len(fed_seen) >= 10:
        assert in_string  # some screens caught a string half received

    screen = tmux.wait(lambda s: _exited(s) is not None, "the command to end")
    assert _exited(screen) == 0, screen
    assert "state ended" in header(screen)
    _check_final(screen)
    assert "Traceback" not in screen


def test_record_watch_live(tmp_path: Path, tmux: Tmux) -> None:
    served = _recording(tmp_path / "served.jsonl", tool_call_reads(FRAGS, step=0.06))
    out = tmp_path / "got.jsonl"
    server = ReplayServer([load(str(served))], host=HOST, port=0, speed=1.0)
    with server.running():
        tmux.start(
            tmp_path,
            command(
                "record",
                server.url + "/v1/chat/completions",
                "-d",
                json.dumps({"model": "gpt-test", "messages": [], "stream": True}),
                "-H",
                f"x-sseconform-recording: {served.name}",
                "-o",
                out,
                "--watch",
            ),
        )
        seen = _watch_reassembly(tmux)
        screen = tmux.wait(lambda s: _exited(s) is not None, "record to end", timeout=15)
    assert seen, "the call was never seen mid-reassembly"
    for mid in seen:
        _check_mid_call(mid, _events(mid) - 1)
    assert _exited(screen) == 0, screen
    # the line wraps at the pane's width, wherever the path's length puts it (a space at
    # the wrap is not kept by the terminal): compared without whitespace
    want = "".join(f"recorded {out}: complete; HTTP 200".split())
    assert want in "".join(screen.split()), screen
    _check_final(screen)
    with open(out, "rb") as fp:
        body = b"".join(b for _, b in RecordingReader(fp, str(out)).reads())
    assert body == load(str(served)).body


def test_stall_then_ctrl_c(tmp_path: Path, tmux: Tmux) -> None:
    reads = [
        (0.05, chunk({"role": "assistant", "content": "Thinking about it"})),
        (30.0, chunk({"content": " - done"})),
        (30.1, chunk({}, "stop") + b"data: [DONE]\n\n"),
    ]
    rec = _recording(tmp_path / "stall.jsonl", reads)
    tmux.start(tmp_path, command("inspect", rec, "--stall", "0.5"))
    screen = tmux.wait(
        lambda s: re.search(r"waiting \d+\.\d s for the next event", s) is not None,
        "the stall to show",
    )
    assert "state streaming" in header(screen)
    assert "Thinking about it" + CURSOR in screen  # the text pane's cursor while streaming
    waited = float(re.search(r"waiting (\d+\.\d) s", screen).group(1))  # type: ignore[union-attr]
    assert waited >= 0.5
    later = tmux.wait(
        lambda s: (
            (m := re.search(r"waiting (\d+\.\d) s", s)) is not None
            and float(m.group(1)) >= waited + 0.3
        ),
        "the stall clock to move",
    )
    assert "events 1 " in header(later)
    tmux.keys("C-c")
    screen = tmux.wait(lambda s: _exited(s) is not None, "the command to stop")
    assert _exited(screen) == 130, screen
    head = header(screen)
    assert "state interrupted" in head and "no [DONE]" in head
    assert "Traceback" not in screen and "KeyboardInterrupt" not in screen
    assert " - done" not in screen


def test_live_view_fits_80x24(tmp_path: Path, tmux: Tmux) -> None:
    rec = _recording(tmp_path / "slow-args.jsonl", tool_call_reads(FRAGS, step=0.06))
    tmux.start(tmp_path, command("inspect", rec), width=80, height=24)
    screen = tmux.wait(
        lambda s: "state streaming" in s and "timeline" in s and _events_or_zero(s) > 10,
        "the stream mid-way",
    )
    lines = screen.splitlines()
    assert lines[0].startswith("\u256d\u2500 sseconform inspect"), screen
    timeline = next(i for i, line in enumerate(lines) if "timeline" in line)
    # a small screen: the timeline has no frame; its figures are the last line, on screen
    assert lines[timeline + 1].startswith("max gap"), screen


def _events_or_zero(screen: str) -> int:
    m = re.search(r"events (\d+)", screen)
    return int(m.group(1)) if m else 0
