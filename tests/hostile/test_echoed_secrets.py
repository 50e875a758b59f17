"""A peer that echoes the key back (in a header, in an error body as OpenAI's API does,
partly masked or whole, or in the stream's text) never gets it into anything sseconform
writes or prints: recordings, reports in every format, the HTML page, stdout and stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from sseconform.gate.suite import recordings_dir
from tests.hostile.masking import load_outputs
from tests.hostile.peers import suite_at
from tests.hostile.test_record_bounds import run

KEY = "sk-proj-Zq8tHk2LmN4pR6sT8vW0xY2zA4bC6dE8fG0hJ2kL"
MASKED = KEY[:3] + "*" * (len(KEY) - 7) + KEY[-4:]
TEXT = recordings_dir() / "anthropic" / "text-anthropic.jsonl"
BODY = '{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'


def leaks(root: Path, *texts: str) -> list[str]:
    """Where the key (whole, masked, or its distinctive middle) shows up."""
    needles = [KEY, MASKED, KEY[8:30]]
    found = []
    for path in root.rglob("*"):
        if path.is_file():
            data = path.read_bytes().decode("utf-8", "replace")
            found += [f"{path.name}: {n}" for n in needles if n in data]
    for i, text in enumerate(texts):
        found += [f"output {i}: {n}" for n in needles if n in text]
    return found


@pytest.mark.parametrize("path", ["/echo", "/echo-stream"])
def test_record_keeps_no_echoed_key(peer: str, tmp_path: Path, path: str) -> None:
    out = tmp_path / "r.jsonl"
    code, err, _, _ = run(
        "record", peer + path, "-d", BODY, "-H", f"Authorization: Bearer {KEY}",
        "-o", str(out), "--raw", str(tmp_path / "raw.sse"), "--check", cwd=tmp_path,
    )  # fmt: skip
    assert code in (0, 1) and out.exists(), err  # the echoed stream itself is valid
    assert leaks(tmp_path, err) == []
    assert "[REDACTED]" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["text", "json", "junit", "github", "sarif", "html"])
@pytest.mark.parametrize("path", ["/echo", "/echo-stream"])
def test_gate_prints_and_writes_no_echoed_key(
    peer: str, tmp_path: Path, path: str, fmt: str
) -> None:
    suite = suite_at(tmp_path, path, TEXT)
    work = tmp_path / "work"
    work.mkdir()
    code, err, _, _ = run(
        "gate", "--gateway", peer, "--suite", str(suite), "--key", KEY,
        "--out", str(work / "out"), "--format", fmt, "-o", str(work / f"report.{fmt}"),
        "--html", str(work / "page.html"), cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert code == 1, err
    assert (work / f"report.{fmt}").stat().st_size > 0
    assert leaks(work, err) == []


@pytest.mark.parametrize("path", ["/echo", "/echo-stream"])
def test_load_reports_no_echoed_key(peer: str, tmp_path: Path, path: str) -> None:
    work, outs = load_outputs(peer, tmp_path, KEY, path, ("json", "text", "html"))
    assert leaks(work, *outs) == []


def test_a_401_points_at_the_key(peer: str, tmp_path: Path) -> None:
    suite = suite_at(tmp_path, "/echo", TEXT)
    code, err, _, _ = run(
        "gate", "--gateway", peer, "--suite", str(suite), "--out", str(tmp_path / "out"),
        "--format", "json", "-o", str(tmp_path / "r.json"), cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert code == 1, err
    import json

    [sc] = json.loads((tmp_path / "r.json").read_text())["scenarios"]
    [f] = [f for f in sc["findings"] if f["code"] == "not-reached"]
    assert "HTTP 401" in f["message"] and "--key" in f["message"]
    assert "--gateway-profile" not in f["message"]
