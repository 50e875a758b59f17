"""``load`` against a hostile gateway: every stream ends by its deadline or at its byte cap
(a gzip bomb is never inflated whole), and each is a nonconforming stream whose finding
names the bound, so a run under load ends on time with its report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sseconform.gate.suite import recordings_dir
from tests.cli.helpers import run_cli
from tests.hostile.peers import suite_at
from tests.load.test_load import needs_locust

TEXT = recordings_dir() / "anthropic" / "text-anthropic.jsonl"


@needs_locust
@pytest.mark.parametrize(
    ("path", "extra", "code"),
    [
        ("/drip", "deadline = 1\n", "transport:deadline"),
        ("/huge?bytes=100000000", "max-bytes = 2000000\n", "transport:too-large"),
        ("/gzip-bomb", "", "transport:decompression-bomb"),
    ],
)
def test_each_stream_ends_at_its_bound(
    peer: str, tmp_path: Path, path: str, extra: str, code: str
) -> None:
    suite = suite_at(tmp_path, path, TEXT, extra)
    run = run_cli(
        "load", "--gateway", peer, "--suite", str(suite), "--users", "2", "--spawn-rate", "2",
        "--run-time", "4s", "--format", "json", "-o", str(tmp_path / "r.json"),
        cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert run.code == 1, run.both[-2000:]
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["requests"] >= 2
    assert report["nonconforming"] == report["requests"]
    assert set(report["codes"]) == {code}, report["codes"]
