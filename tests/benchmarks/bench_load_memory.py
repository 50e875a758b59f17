"""Benchmark: memory per simulated user in ``sseconform load``.

Run:  python tests/benchmarks/bench_load_memory.py [--users 10,50,200] [--seconds 15]

Runs ``sseconform load`` (Locust headless, one process) against the project's test gateway
at recorded speed for each user count, and prints the Locust process's peak RSS (the report's
``memory.load_generator_max_rss_mb``) and the growth per user over the smallest run. Each user
holds a requests session and the grader of the one stream it is reading (never the stream), so
the growth per user should stay far below a MiB.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from sseconform.demo.gateway import Gateway  # noqa: E402
from tests.gate.test_gate import free_port  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--users", default="10,50,200")
    ap.add_argument("--seconds", type=int, default=15)
    args = ap.parse_args()
    counts = [int(x) for x in args.users.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for users in counts:
            port = free_port()
            with Gateway(f"http://127.0.0.1:{port}").running() as gw:
                out = Path(tmp) / f"{users}.json"
                run = subprocess.run(
                    [sys.executable, "-m", "sseconform", "load", "--gateway", gw.url,
                     "--upstream-port", str(port), "--users", str(users), "--spawn-rate",
                     str(users), "--run-time", f"{args.seconds}s", "--format", "json",
                     "-o", str(out)],
                    capture_output=True, text=True, cwd=ROOT, timeout=args.seconds + 120,
                )  # fmt: skip
                if run.returncode not in (0, 1):
                    sys.exit(run.stderr[-2000:])
                r = json.loads(out.read_text())
                rows.append((users, r["requests"], r["memory"]["load_generator_max_rss_mb"]))
    base_users, _, base_rss = rows[0]
    print(f"{'users':>6} {'streams':>8} {'Locust peak RSS MB':>19} {'MB per extra user':>18}")
    for users, streams, rss in rows:
        per = (rss - base_rss) / (users - base_users) if users != base_users else 0.0
        print(f"{users:>6} {streams:>8} {rss:>19.1f} {per:>18.3f}")


if __name__ == "__main__":
    main()
