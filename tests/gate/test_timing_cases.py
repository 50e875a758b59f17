"""The timing rules over folders of cases: ``tests/cases/timing/{pass,fail}/<slug>/`` holds an
upstream recording and a gateway recording (each read's time counted from the request its
side got) and ``expected.txt``, the exact set of timing keys the rules must report (a pass
case may expect a warning). Each case runs through the library (``measure_recordings`` and
the rule family's ``judge``) and through ``sseconform diff --timing``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sseconform.gate.timing import DEFAULT_BUDGETS, measure_recordings
from sseconform.gate.timing_rules import RULES, find, judge
from sseconform.replay.plan import load
from tests.cli.helpers import run_cli
from tests.conftest import CASES

TIMING = CASES / "timing"
CASE_DIRS = sorted(p for p in TIMING.glob("*/*") if (p / "expected.txt").is_file())


def _expected(case: Path) -> set[str]:
    return set((case / "expected.txt").read_text(encoding="utf-8").split())


@pytest.mark.parametrize("case", CASE_DIRS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case(case: Path) -> None:
    up, gw = load(str(case / "upstream.jsonl")), load(str(case / "gateway.jsonl"))
    tm = measure_recordings(up, gw)
    assert tm is not None
    got = judge(tm, DEFAULT_BUDGETS)
    assert {v.key for v in got} == _expected(case), [v.message for v in got]
    errors = [v for v in got if v.severity == "error"]
    assert (case.parent.name == "fail") == bool(errors)
    for v in got:  # located at an event of the gateway's stream
        assert v.frame is not None and v.frame >= 1 and v.offset is not None


@pytest.mark.parametrize("case", CASE_DIRS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case_through_diff(case: Path) -> None:
    run = run_cli(
        "diff", str(case / "upstream.jsonl"), str(case / "gateway.jsonl"), "--timing",
        "--gateway-from", "auto", "--format", "json", cwd=case,
    )  # fmt: skip
    doc = json.loads(run.out)
    assert {f["key"] for f in doc["timing_findings"]} == _expected(case)
    assert set(doc["timing"]) >= {"added_first_token_s", "longest_silence_s"}
    assert run.code == (1 if case.parent.name == "fail" else 0), run.both


def test_every_rule_has_a_failing_case_and_its_docs() -> None:
    shown = {k for case in CASE_DIRS for k in _expected(case)}
    # a retry's wait spans two upstream requests, more than a case's one recording each
    # side holds: it is tested end to end (tests/gate/test_gate.py, test_verdicts.py)
    assert shown == {r.key for r in RULES} - {"timing:retry-wait"}
    for r in RULES:
        assert find(r.key) is r and find(r.code) is r
        assert r.doc.what and r.doc.why and r.doc.clients and r.doc.example and r.doc.fix
        out = run_cli("rule", r.key, cwd=TIMING).out
        assert out.startswith(f"{r.key} ({r.severity};") and "## Which clients break" in out


def test_a_budget_moves_the_verdict(tmp_path: Path) -> None:
    case = TIMING / "fail" / "first-token-held"
    args = ["diff", str(case / "upstream.jsonl"), str(case / "gateway.jsonl"), "--timing"]
    assert run_cli(*args, cwd=tmp_path).code == 1
    lenient = run_cli(*args, "--budget", "first-token=1", cwd=tmp_path)
    assert lenient.code == 0 and "timing (s): upstream_first_token_s" in lenient.out
    # the upstream got its request 0.3 s after the gateway got the client's: the upstream's
    # writes move 0.3 s later, so each piece's added delay shrinks by that much, while the
    # first token, counted from each side's request, includes the forwarding and stays
    times = {}
    for fwd in ("0", "0.3"):
        run = run_cli(*args, "--forwarded", fwd, "--format", "json", cwd=tmp_path)
        times[fwd] = json.loads(run.out)["timing"]
    assert times["0.3"]["added_first_token_s"] == times["0"]["added_first_token_s"] == 0.8
    assert times["0.3"]["added_delay_max_s"] == pytest.approx(times["0"]["added_delay_max_s"] - 0.3)
    bad = run_cli(*args, "--budget", "latency=1", cwd=tmp_path)
    assert bad.code == 2 and "NAME=SECONDS" in bad.err and "Traceback" not in bad.err
