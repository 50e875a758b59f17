"""``record`` against a hostile server: it ends by its deadline however the server drips,
keeps at most ``--max-bytes``, never inflates a gzip bomb, and says which bound ended it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sseconform.recording.bounds import FLOOR, MAX_RATIO
from tests.hostile.peers import bomb

BODY = '{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'


#: Runs sseconform and prints its own peak RSS (VmHWM, KiB) last on stderr: a child's
#: ru_maxrss would also count the memory of the (large) test worker it was forked from.
PEAK = (
    "import atexit, runpy, sys\n"
    "def peak():\n"
    "    for line in open('/proc/self/status'):\n"
    "        if line.startswith('VmHWM:'):\n"
    "            sys.stderr.write('\\nPEAK-KIB ' + line.split()[1] + '\\n')\n"
    "atexit.register(peak)\n"
    "sys.argv = ['sseconform', *sys.argv[1:]]\n"
    "runpy.run_module('sseconform', run_name='__main__')\n"
)


def run(*args: str, cwd: Path, timeout: float = 60) -> tuple[int, str, float, int]:
    """``sseconform ARGS``: exit code, stderr, seconds taken and the peak RSS in MiB of
    that process alone (-1 where /proc cannot say)."""
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-c", PEAK, *args],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "NO_COLOR": "1"},
        timeout=timeout,
        check=False,
    )
    seconds = time.monotonic() - t0
    text = proc.stderr.decode("utf-8", "replace")
    assert "Traceback" not in text, text
    text, _, peak = text.rpartition("\nPEAK-KIB ")
    rss = int(peak.strip()) // 1024 if peak.strip().isdigit() else -1
    return proc.returncode, text if peak else proc.stderr.decode(), seconds, rss


def end_of(path: Path) -> dict[str, object]:
    last = path.read_text(encoding="utf-8").splitlines()[-1]
    end = json.loads(last)["end"]
    assert isinstance(end, dict)
    return end


def body_bytes(path: Path) -> int:
    n = 0
    for line in path.read_text(encoding="utf-8").splitlines()[2:-1]:
        n += len(json.loads(line)["text"].encode())
    return n


@pytest.mark.parametrize("path", ["/drip", "/drip-head"])
def test_a_dripping_server_is_stopped_at_the_deadline(peer: str, tmp_path: Path, path: str) -> None:
    out = tmp_path / "r.jsonl"
    code, err, seconds, _ = run(
        "record", peer + path, "-d", BODY, "-o", str(out), "--deadline", "1.5", cwd=tmp_path
    )
    assert code == 1
    assert seconds < 10, seconds  # 1.5 s, plus starting Python
    assert "deadline of 1.5 s" in err and "--deadline" in err, err
    if path == "/drip-head":  # not even a status line by then: nothing recorded, no file
        assert "nothing recorded" in err and not out.exists()
        return
    end = end_of(out)
    assert end["complete"] is False
    assert "deadline" in str(end["reason"])


def test_an_endless_stream_is_cut_at_max_bytes(peer: str, tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    code, err, _, _ = run(
        "record",
        peer + "/endless",
        "-d",
        BODY,
        "-o",
        str(out),
        "--max-bytes",
        "1000000",
        cwd=tmp_path,
    )
    assert code == 1
    assert "1,000,000 bytes" in err and "--max-bytes" in err, err
    assert body_bytes(out) == 1_000_000
    assert end_of(out)["complete"] is False


def test_a_gzip_bomb_is_not_inflated(peer: str, tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    code, err, _, rss = run("record", peer + "/gzip-bomb", "-d", BODY, "-o", str(out), cwd=tmp_path)
    assert code == 1
    assert "decompression bomb" in err, err
    stored = body_bytes(out)
    assert stored <= FLOOR + MAX_RATIO * len(bomb()), stored
    assert out.stat().st_size < 64 * 1024 * 1024
    assert 0 < rss < 400, f"{rss} MiB"
    header = json.loads(out.read_text(encoding="utf-8").splitlines()[1])
    assert header["response"]["decoded"] == "gzip"
