"""The test files that cost a CI run the most: each file's tests' seconds summed from a JUnit
file (pytest's ``--junitxml``), the longest first, with the whole run's sum.

    python -m tools.slowest_files JUNIT.xml [COUNT]

With ``--dist loadfile`` a file runs on one worker, so a file longer than the run's wall time
divided by the workers sets the wall time by itself; ``tests/conftest.py`` ``FIRST`` orders the
files by these figures.
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path


def per_file(junit: Path) -> dict[str, float]:
    """Seconds per test file (setup, call and teardown, as JUnit counts them)."""
    seconds: defaultdict[str, float] = defaultdict(float)
    for case in ET.parse(junit).iter("testcase"):
        parts = case.get("classname", "").split(".")
        while len(parts) > 1 and parts[-1][:1].isupper():  # a test class, not a module
            parts.pop()
        where = "/".join(parts) + ".py"
        seconds[where] += float(case.get("time", "0") or 0)
    return dict(seconds)


def main(argv: list[str]) -> int:
    if not argv or not Path(argv[0]).is_file():
        print("usage: python -m tools.slowest_files JUNIT.xml [COUNT]", file=sys.stderr)
        return 2
    seconds = per_file(Path(argv[0]))
    count = int(argv[1]) if len(argv) > 1 else 20
    for where, spent in sorted(seconds.items(), key=lambda kv: -kv[1])[:count]:
        print(f"{spent:7.0f}  {where}")
    print(f"{sum(seconds.values()):7.0f}  all {len(seconds)} files")
    return 0


if __name__ == "__main__":
    try:
        raise SystemExit(main(sys.argv[1:]))
    except BrokenPipeError:  # piped into head: the rest is not wanted
        sys.stderr.close()
