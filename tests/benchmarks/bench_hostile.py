"""Hostile peers: how long ``gate`` and ``record`` take to end, and how much memory they
hold, against a gateway that answers with a gigabyte, one that drips a byte at a time, and a
gzip bomb (all from ``tests/hostile/peers.py``, on 127.0.0.1).

Before the bounds (issue figures): a 1 GB answer peaked at 3.6 GB of RSS in ``gate``; a
dripping gateway was never left (killed at 40 s with no report); a 204 KB gzip bomb
became a 1.26 GB recording. Figures only, never a pass/fail.

    python tests/benchmarks/bench_hostile.py [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.hostile.peers import hostile_peer, suite_at  # noqa: E402

TEXT = ROOT / "recordings" / "anthropic" / "text-anthropic.jsonl"
BODY = '{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'


def run(args: list[str], cwd: Path, timeout: float = 600) -> tuple[int, float, int, str]:
    """Exit code, seconds, peak RSS (MiB) of that process alone, stderr."""
    t0 = time.monotonic()
    err = cwd / f"err-{time.monotonic_ns()}"
    with open(err, "wb") as fp:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sseconform", *args],
            cwd=cwd, stdout=subprocess.DEVNULL, stderr=fp, stdin=subprocess.DEVNULL,
        )  # fmt: skip
        killer = threading.Timer(timeout, proc.kill)
        killer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            killer.cancel()
    return (os.waitstatus_to_exitcode(status), time.monotonic() - t0, usage.ru_maxrss // 1024,
            err.read_text(errors="replace"))  # fmt: skip


def gate(peer: str, path: str, work: Path, *more: str) -> tuple[float, int, str]:
    suite = suite_at(work, path, TEXT)
    out = work / f"out-{time.monotonic_ns()}"
    _, seconds, rss, _ = run(
        ["gate", "--gateway", peer, "--suite", str(suite), "--out", str(out), "--format",
         "json", "-o", str(out) + ".json", *more], work)  # fmt: skip
    report = json.loads(Path(str(out) + ".json").read_text())
    codes = ",".join(f"{f['source']}:{f['code']}" for f in report["scenarios"][0]["findings"])
    return seconds, rss, codes


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="a 256 MB answer instead of 1 GB")
    args = ap.parse_args()
    size = (256 if args.quick else 1024) * 1024 * 1024
    with tempfile.TemporaryDirectory() as tmp, hostile_peer() as peer:
        work = Path(tmp)
        print(f"gate against a gateway answering with {size / 2**20:.0f} MiB:")
        s, rss, codes = gate(peer, f"/huge?bytes={size}", work)
        print(f"  default cap (16 MiB + 16 x the upstream's body): ended in {s:.1f} s, "
              f"peak RSS {rss} MiB [{codes}]")  # fmt: skip
        s, rss, codes = gate(peer, f"/huge?bytes={size // 8}", work, "--max-bytes", str(size))
        print(f"  --max-bytes {size}, a {size // 8 / 2**20:.0f} MiB answer graded whole: "
              f"{s:.1f} s, peak RSS {rss} MiB [{codes}]")  # fmt: skip
        print("gate against a gateway that drips a byte every 0.2 s:")
        for more in ([], ["--deadline", "2"]):
            s, rss, codes = gate(peer, "/drip", work, *more)
            label = " ".join(more) or "the default deadline (speed 0: 15 s)"
            print(f"  {label}: ended in {s:.1f} s [{codes}]")
        s, rss, codes = gate(peer, "/gzip-bomb", work)
        print(f"gate against a gzip bomb (256 MiB of zeros in ~256 KB): {s:.1f} s, peak RSS "
              f"{rss} MiB [{codes}]")  # fmt: skip
        out = work / "bomb.jsonl"
        code, s, rss, _ = run(["record", peer + "/gzip-bomb", "-d", BODY, "-o", str(out)], work)
        print(f"record of the gzip bomb: {s:.1f} s, peak RSS {rss} MiB, recording "
              f"{out.stat().st_size / 2**20:.1f} MiB (exit {code})")  # fmt: skip


if __name__ == "__main__":
    main()
