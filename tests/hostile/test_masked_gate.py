"""``gate`` against a gateway that echoes the client's key in every form careless code
gives it (split over deltas, escaped, base64, URL-encoded, case-changed, masked past four
characters): no form reaches any report format, the HTML page, a recording or the console.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sseconform.gate.suite import recordings_dir
from tests.hostile.masking import KEYS, leaks
from tests.hostile.peers import suite_at
from tests.hostile.test_record_bounds import run

TEXT = recordings_dir() / "anthropic" / "text-anthropic.jsonl"
PATHS = ("/echo-split", "/echo-escaped", "/echo-forms", "/echo")


def suites(folder: Path) -> list[str]:
    """One suite per echoing behaviour, each in its own folder."""
    out = []
    for path in PATHS:
        where = folder / path.strip("/")
        where.mkdir()
        suite = suite_at(where, path, TEXT)
        suite.write_text(suite.read_text().replace('"hostile"', f'"{path.strip("/")}"'))
        out += ["--suite", str(suite)]
    return out


#: Every format for one key; the two that show the most (JSON's messages and the HTML page's
#: reassembled text, timelines and bytes) for every key.
RUNS = [("sk", f) for f in ("text", "junit", "github", "sarif")] + [
    (shape, fmt) for shape in sorted(KEYS) for fmt in ("json", "html")
]


@pytest.mark.parametrize(("shape", "fmt"), RUNS)
def test_gate_shows_no_form_of_the_key(peer: str, tmp_path: Path, shape: str, fmt: str) -> None:
    key = KEYS[shape]
    work = tmp_path / "work"
    work.mkdir()
    code, err, _, _ = run(
        "gate", "--gateway", peer, *suites(tmp_path), "--key", key, "--out", str(work / "out"),
        "--format", fmt, "-o", str(work / f"report.{fmt}"), "--html", str(work / "page.html"),
        cwd=tmp_path, timeout=180,
    )  # fmt: skip
    assert code == 1, err
    report = (work / f"report.{fmt}").read_text(encoding="utf-8")
    assert "echo-split" in report and "echo-forms" in report
    assert "[REDACTED]" in (work / "page.html").read_text(encoding="utf-8")
    assert leaks(key, work, err) == []


def test_the_page_still_shows_the_text_around_the_key(peer: str, tmp_path: Path) -> None:
    """Masking takes the key, not the answer: the words around it stay readable."""
    key = KEYS["sk"]
    code, err, _, _ = run(
        "gate", "--gateway", peer, "--suite", str(suite_at(tmp_path, "/echo-split", TEXT)),
        "--key", key, "--out", str(tmp_path / "out"), "--format", "json",
        "-o", str(tmp_path / "r.json"), "--html", str(tmp_path / "page.html"),
        cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert code == 1, err
    page = (tmp_path / "page.html").read_text(encoding="utf-8")
    assert "key: [REDACTED]" in page
