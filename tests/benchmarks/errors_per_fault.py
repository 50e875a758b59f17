"""How many errors one injected fault gives: each fail case folder is one fault.

    python tests/benchmarks/errors_per_fault.py

Root cause first: a fault should give one error (its rule's) and not a trail of consequences.
Prints, per grammar, the distribution of error counts over the fail cases of error rules, and
every case with more than one error, with its codes, so the note can say where and why.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from sseconform.api import check_bytes
from sseconform.rules.base import Settings
from sseconform.rules.catalog import RULES, Severity

CASES = Path(__file__).resolve().parents[1] / "cases"
FOLDERS = {"chat": CASES / "fail", "anthropic": CASES / "anthropic" / "fail"}
FOLDERS["responses"] = CASES / "responses" / "fail"


def main() -> None:
    for grammar, folder in FOLDERS.items():
        counts: Counter[int] = Counter()
        more: list[str] = []
        for case in sorted(p for p in folder.iterdir() if p.is_dir()):
            code = case.name.split("-", 1)[0]
            if RULES[code].severity is not Severity.ERROR:
                continue  # a warning rule's case injects no error to count
            settings = Settings(**_limits(case))
            result = check_bytes((case / "stream.sse").read_bytes(), settings, grammar=grammar)
            errors = [d.code for d in result.findings if RULES[d.code].severity is Severity.ERROR]
            counts[len(errors)] += 1
            if len(errors) > 1:
                more.append(f"  {case.name}: {' '.join(errors)}")
        total = sum(counts.values())
        ones = counts.get(1, 0)
        print(
            f"{grammar}: {total} faults; errors per fault "
            + ", ".join(f"{n}: {c}" for n, c in sorted(counts.items()))
            + f"; exactly one in {ones}/{total} ({100 * ones / max(total, 1):.0f}%)"
        )
        print("\n".join(more))


def _limits(case: Path) -> dict[str, Any]:
    """A case folder may lower a limit (settings.json) to reach its rule."""
    path = case / "settings.json"
    if not path.is_file():
        return {}
    limits: dict[str, Any] = json.loads(path.read_text())
    return limits


if __name__ == "__main__":
    main()
