"""``gate`` against a hostile gateway build: whatever it does (drip, stream forever, answer
with 64 MiB, send a gzip bomb), the run ends by its deadline with a report whose verdict
names the bound the gateway broke, and the gate's memory does not follow the answer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sseconform.gate.bounds import DEADLINE_MARGIN, deadline_for, max_bytes_for
from sseconform.gate.references import references
from sseconform.gate.scenario import Scenario
from sseconform.gate.suite import recordings_dir
from sseconform.replay.plan import load
from tests.hostile.peers import suite_at
from tests.hostile.test_record_bounds import run

TEXT = recordings_dir() / "anthropic" / "text-anthropic.jsonl"


def gate(
    peer: str, tmp_path: Path, path: str, *more: str
) -> tuple[int, dict[str, Any], float, int]:
    suite = suite_at(tmp_path, path, TEXT)
    report = tmp_path / "report.json"
    code, err, seconds, rss = run(
        "gate", "--gateway", peer, "--suite", str(suite), "--out", str(tmp_path / "out"),
        "--format", "json", "-o", str(report), *more, cwd=tmp_path, timeout=120,
    )  # fmt: skip
    assert report.exists(), err
    return code, json.loads(report.read_text(encoding="utf-8")), seconds, rss


def findings(report: dict[str, Any]) -> dict[str, str]:
    [sc] = report["scenarios"]
    return {f"{f['source']}:{f['code']}": f["message"] for f in sc["findings"]}


@pytest.mark.parametrize("path", ["/drip", "/drip-head"])
def test_a_dripping_gateway_fails_at_the_deadline(peer: str, tmp_path: Path, path: str) -> None:
    code, report, seconds, _ = gate(peer, tmp_path, path, "--deadline", "2")
    assert code == 1
    assert seconds < 20, seconds
    found = findings(report)
    assert "transport:deadline" in found, found
    assert "deadline of 2 s" in found["transport:deadline"]


def test_an_endless_gateway_is_cut_at_the_cap_and_the_gate_stays_small(
    peer: str, tmp_path: Path
) -> None:
    code, report, _, rss = gate(peer, tmp_path, "/huge")
    assert code == 1
    found = findings(report)
    assert "transport:too-large" in found, found
    kept = tmp_path / "out" / "text.jsonl"
    assert kept.stat().st_size < 2 * max_bytes_for(load(str(TEXT)))
    assert 0 < rss < 400, f"{rss} MiB for a 64 MiB answer"


def test_a_gzip_bomb_from_the_gateway(peer: str, tmp_path: Path) -> None:
    code, report, _, rss = gate(peer, tmp_path, "/gzip-bomb")
    assert code == 1
    assert "transport:decompression-bomb" in findings(report)
    assert 0 < rss < 400, f"{rss} MiB"


def test_the_default_deadline_follows_the_upstream() -> None:
    rec = load(str(TEXT))

    def deadline(fault: str | None, speed: float) -> float:
        sc = Scenario("s", str(TEXT), upstream="anthropic", fault=fault)
        return deadline_for(references(sc, rec, "anthropic", speed).seconds)

    assert deadline(None, 0) == pytest.approx(DEADLINE_MARGIN, abs=0.01)
    recorded = deadline(None, 1)
    assert recorded > DEADLINE_MARGIN
    assert deadline("stall=3@1", 1) == pytest.approx(recorded + 6, abs=0.01)  # twice the stall


def test_a_suite_sets_its_bounds(tmp_path: Path) -> None:
    from sseconform.errors import SseconformError
    from sseconform.gate.suite import load_suite

    suite = tmp_path / "s.toml"
    body = f'[[scenario]]\nname = "t"\nrecording = "{TEXT}"\n'
    suite.write_text(f"deadline = 7\nmax-bytes = 1000\n{body}", encoding="utf-8")
    s = load_suite(str(suite))
    assert (s.deadline, s.max_bytes) == (7.0, 1000)
    for bad in ("deadline = -1", "deadline = nan", 'max-bytes = "big"', "max-bytes = 0"):
        suite.write_text(f"{bad}\n{body}", encoding="utf-8")
        with pytest.raises(SseconformError):
            load_suite(str(suite))


def test_a_silent_gateway_is_named_silent(peer: str, tmp_path: Path) -> None:
    """Its head, then nothing: not "streamed past the deadline" (nothing was streamed)."""
    code, report, seconds, _ = gate(peer, tmp_path, "/silent", "--deadline", "2")
    assert code == 1 and seconds < 20
    found = findings(report)
    assert "transport:deadline" not in found, found
    message = found["transport:silent"]
    assert "response head, then nothing for" in message and "deadline of 2 s" in message


def test_an_oversized_head_is_named(peer: str, tmp_path: Path) -> None:
    code, report, _, _ = gate(peer, tmp_path, "/big-head")
    assert code == 1
    found = findings(report)
    assert "transport:no-response" not in found, found
    assert "larger than an HTTP client takes" in found["transport:head-too-large"]
