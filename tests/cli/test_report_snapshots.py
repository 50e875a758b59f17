"""Snapshots of what users see: every report format for fixed inputs, byte for byte.

Run from the repository root with relative paths, as a CI job would. After an intended
change to a reporter, rewrite the snapshots and review the diff::

    SSECONFORM_UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/cli/test_report_snapshots.py
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.helpers import run_cli
from tests.conftest import ROOT
from tests.snapshot import UPDATE
from tests.snapshot import compare as _compare

SNAPSHOTS = Path(__file__).resolve().parent / "snapshots"

INPUTS: dict[str, tuple[list[str], int]] = {
    # name: (arguments after the options, expected exit code)
    "pass-ping-comments": (["tests/cases/pass/ping-comments"], 0),
    "fail-T001-head-missing-id": (["tests/cases/fail/T001-head-missing-id"], 1),
    # two codes under two invariants (T007 tool-call-head, F009 final-empty-delta)
    "fail-T007-arguments-resent": (["tests/cases/fail/T007-arguments-resent"], 1),
    "all-three": (
        [
            "tests/cases/pass/ping-comments",
            "tests/cases/fail/T001-head-missing-id",
            "tests/cases/fail/T007-arguments-resent",
        ],
        1,
    ),
    # a warning that fails only under --strict; every format must agree with the exit code
    "strict-W003-crlf-framing": (["--strict", "tests/cases/fail/W003-crlf-framing"], 1),
}
FORMATS = {"text": "txt", "json": "json", "junit": "xml", "github": "github.txt"}


@pytest.mark.parametrize("fmt", list(FORMATS))
@pytest.mark.parametrize("name", list(INPUTS))
def test_report_snapshot(name: str, fmt: str) -> None:
    args, exit_code = INPUTS[name]
    run = run_cli("check", "--format", fmt, *args, cwd=ROOT)
    assert run.code == exit_code, run.both
    assert run.err == ""
    _compare(SNAPSHOTS / f"{name}.{FORMATS[fmt]}", run.out)


def test_output_file_matches_the_snapshot(tmp_path: Path) -> None:
    """--output writes the very bytes the snapshot holds."""
    args, exit_code = INPUTS["all-three"]
    report = tmp_path / "report.xml"
    run = run_cli("check", "--format", "junit", "--output", report, *args, cwd=ROOT)
    assert run.code == exit_code
    assert run.out == ""
    if not UPDATE:
        with open(SNAPSHOTS / "all-three.xml", encoding="utf-8", newline="") as fp:
            assert report.read_bytes().decode("utf-8") == fp.read()


def test_no_stale_snapshots() -> None:
    wanted = {f"{name}.{ext}" for name in INPUTS for ext in FORMATS.values()}
    present = {p.name for p in SNAPSHOTS.iterdir()} if SNAPSHOTS.is_dir() else set()
    assert present <= wanted, f"snapshots no test uses: {sorted(present - wanted)}"
