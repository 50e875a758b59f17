"""``check --baseline`` / ``--write-baseline``: known findings do not fail, fixed ones are said,
in every format; the file is updated in place and never replaced by surprise."""

from __future__ import annotations

import json
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.cli.helpers import run_cli
from tests.conftest import ROOT

CASES = ROOT / "tests" / "cases"


@pytest.fixture
def streams(tmp_path: Path) -> Path:
    """a.sse fails D001, c.sse fails E001, b.sse passes (with an info)."""
    shutil.copy(CASES / "fail" / "D001-done-missing" / "stream.sse", tmp_path / "a.sse")
    shutil.copy(CASES / "pass" / "comment-after-done" / "stream.sse", tmp_path / "b.sse")
    shutil.copy(CASES / "fail" / "E001-error-is-string" / "stream.sse", tmp_path / "c.sse")
    return tmp_path


FILES = ("a.sse", "b.sse", "c.sse")


def test_write_then_gate_on_it(streams: Path) -> None:
    r = run_cli("check", *FILES, "--write-baseline", "known.json", cwd=streams)
    assert r.code == 1  # the run itself still fails: writing a baseline accepts nothing yet
    assert "baseline written to known.json" in r.err
    doc = json.loads((streams / "known.json").read_text())
    assert doc["kind"] == "check"
    assert doc["entries"] == {"a.sse": {"D001": 1}, "c.sse": {"E001": 1}}

    r = run_cli("check", *FILES, "--baseline", "known.json", cwd=streams)
    assert r.code == 0, r.both
    assert "a.sse: 1 known diagnostic not shown (baseline: D001)" in r.out
    assert "D001 error" not in r.out
    assert r.out.rstrip().endswith("0 errors, 0 warnings, 1 info; 2 known (baseline)")


def test_a_new_finding_still_fails(streams: Path) -> None:
    run_cli("check", *FILES, "--write-baseline", "known.json", cwd=streams)
    shutil.copy(streams / "c.sse", streams / "a.sse")  # a.sse now has E001, not D001
    r = run_cli("check", *FILES, "--baseline", "known.json", cwd=streams)
    assert r.code == 1
    assert "a.sse:5: E001 error" in r.out
    assert "a.sse: baseline entry D001 no longer happens: drop it from the baseline" in r.out


def test_fixed_entries_and_in_place_update(streams: Path) -> None:
    run_cli("check", *FILES, "--write-baseline", "known.json", cwd=streams)
    doc = json.loads((streams / "known.json").read_text())
    doc["notes"] = {"a.sse": "fixed upstream", "c.sse": "the vendor's bug 42"}
    (streams / "known.json").write_text(json.dumps(doc))
    shutil.copy(streams / "b.sse", streams / "a.sse")  # a.sse is fixed
    r = run_cli("check", "a.sse", "--baseline", "known.json", "-f", "json", cwd=streams)
    assert r.code == 0
    doc = json.loads(r.out)
    assert doc["files"][0]["baseline_fixed"] == ["D001"] and doc["files"][0]["known"] == {}
    assert doc["summary"]["baseline_fixed"] == 1 and doc["summary"]["known"] == 0
    r = run_cli("check", "a.sse", "--baseline", "known.json", "-f", "github", cwd=streams)
    assert "::notice file=a.sse,title=sseconform baseline::baseline entry D001" in r.out
    # update in place, checking a.sse only: its entry goes, c.sse (not checked) stays
    r = run_cli(
        "check", "a.sse", "--baseline", "known.json", "--write-baseline", "known.json",
        cwd=streams,
    )  # fmt: skip
    assert r.code == 0, r.both
    doc = json.loads((streams / "known.json").read_text())
    assert doc["entries"] == {"c.sse": {"E001": 1}}
    assert doc["notes"] == {"c.sse": "the vendor's bug 42"}


def test_junit_stays_one_valid_document(streams: Path) -> None:
    run_cli("check", *FILES, "--write-baseline", "known.json", cwd=streams)
    r = run_cli("check", *FILES, "--baseline", "known.json", "-f", "junit", cwd=streams)
    assert r.code == 0
    root = ET.fromstring(r.out.split("\n", 1)[1].rsplit("<!--", 1)[0])
    assert root.get("failures") == "0"
    [suite] = root.findall("testsuite")
    notes = suite.findall("system-out")
    assert len(notes) == 1 and "a.sse: 1 known diagnostic not shown" in (notes[0].text or "")


def test_an_existing_file_is_not_replaced(streams: Path) -> None:
    (streams / "mine.json").write_text("keep me")
    r = run_cli("check", *FILES, "--write-baseline", "mine.json", cwd=streams)
    assert r.code == 2 and "mine.json: exists (use --force" in r.err
    assert (streams / "mine.json").read_text() == "keep me"
    r = run_cli("check", *FILES, "--write-baseline", "mine.json", "--force", cwd=streams)
    assert r.code == 1 and json.loads((streams / "mine.json").read_text())["kind"] == "check"


def test_not_written_when_an_input_cannot_be_checked(streams: Path) -> None:
    r = run_cli("check", "a.sse", "nope.sse", "--write-baseline", "known.json", cwd=streams)
    assert r.code == 2
    assert "baseline not written to known.json: not every input could be checked" in r.err
    assert not (streams / "known.json").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "known.json: line 1: not JSON"),
        ('{"format": "sseconform-baseline", "version": 1, "kind": "gate", "entries": {}}',
         "known.json: a 'gate' baseline, not a 'check' one"),
    ],
)  # fmt: skip
def test_a_bad_baseline_is_a_one_line_error(streams: Path, text: str, message: str) -> None:
    (streams / "known.json").write_text(text)
    r = run_cli("check", *FILES, "--baseline", "known.json", cwd=streams)
    assert r.code == 2 and message in r.err and "Traceback" not in r.both
