"""``sseconform load``: Locust (headless) streaming the suites through a gateway, every stream
graded as it arrives. Against the project's test gateway on 127.0.0.1, in modes that corrupt
streams only under concurrency: the report recovers the fault rate (every tenth request) within
three percentage points, under the right codes. Short runs, bounded in time; LiteLLM's run is
in tests/gate/test_litellm.py."""

from __future__ import annotations

import csv
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

from sseconform.load.plan import Outcome, Settings, prepare, rules_for_tag
from sseconform.load.stats import Histogram, LoadStats, text_report
from tests import snapshot
from tests.cli.helpers import run_cli
from tests.gate.gateway import Gateway
from tests.gate.test_gate import free_port

#: Locust runs in its own process (``sseconform load``): importing it here would monkey-patch
#: this test process with gevent and break every asyncio server the other tests start.
needs_locust = pytest.mark.skipif(
    importlib.util.find_spec("locust") is None, reason="Locust is not installed (sseconform[load])"
)

SNAPSHOTS = Path(__file__).parent / "snapshots"
#: Scenarios whose every stream has text (a corruption of a content delta always shows).
TEXT = [a for g in ("*/text", "*/usage", "*/reasoning", "*/text-then-call") for a in ("--only", g)]


def _load(tmp: Path, bugs: set[str], *args: str, users: int = 20, seconds: int = 8) -> Any:
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", bugs).running() as gw:
        run = run_cli(
            "load", "--gateway", gw.url, "--upstream-port", str(port),
            "--users", str(users), "--spawn-rate", str(users), "--run-time", f"{seconds}s",
            "--format", "json", "-o", str(tmp / "report.json"), *args,
            cwd=tmp, timeout=120,
        )  # fmt: skip
    assert run.code in (0, 1), run.both[-3000:]
    text = (tmp / "report.json").read_text()
    report = json.loads(text) if text.startswith("{") else text
    return run, report


#: What each corruption reads as. Cross-talk puts another stream's latest delta in place of
#: the first one: usually other text (changed); when the other stream is further along the
#: same recording, the text of a later delta of this one (duplicated), which the alignment
#: may also read as this stream's first delta gone (lost: CI saw one such stream in 17).
CODES = {
    "load-corrupt": {"diff:lost:text"},
    "cross-talk": {"diff:changed:text", "diff:duplicated:text", "diff:lost:text"},
}


@needs_locust
@pytest.mark.parametrize("bug", sorted(CODES))
def test_the_fault_rate_under_concurrency_is_recovered(tmp_path: Path, bug: str) -> None:
    run, r = _load(tmp_path, {bug}, *TEXT, "--csv", str(tmp_path / "locust"))
    # enough streams to read a 10% rate (how many fit in the run: the machine's load)
    assert r["requests"] >= 50, r
    assert abs(r["nonconforming_rate"] - 0.10) <= 0.03, r
    assert r["codes"] and set(r["codes"]) <= CODES[bug], r["codes"]
    assert run.code == 1
    # Locust's own stats name the failures by their finding
    with open(tmp_path / "locust_failures.csv", newline="") as fp:
        failures = list(csv.DictReader(fp))
    assert failures, failures
    assert all(any(code in row["Error"] for code in CODES[bug]) for row in failures), failures
    with open(tmp_path / "locust_stats.csv", newline="") as fp:
        stats = {row["Name"]: row for row in csv.DictReader(fp)}
    # Locust writes its CSV when the run time ends; streams still in flight then finish
    # within --stop-timeout and are in sseconform's report only
    assert 0 < int(stats["Aggregated"]["Failure Count"]) <= r["nonconforming"]


@needs_locust
def test_a_correct_gateway_conforms_under_load(tmp_path: Path) -> None:
    run, r = _load(tmp_path, set(), "--speed", "0", users=10, seconds=5)
    # how many streams fit in 5 s depends on the machine's load (CI once saw 10): every
    # user streams at least once, and not one stream may fail to conform
    assert r["requests"] >= 10 and r["nonconforming"] == 0, (r["codes"], r["examples"])
    assert run.code == 0
    assert (
        r["levels"][-1]["users"] == 10 and sum(x["streams"] for x in r["levels"]) == r["requests"]
    )
    page = run_cli(
        "load", "--render", "report.json", "--format", "html", "-o", "r.html", cwd=tmp_path
    )
    assert page.code == 0 and "Every stream conformed." in (tmp_path / "r.html").read_text()
    assert r["ttft_ms"]["p50"] is not None and r["throughput"]["streams_per_s"] > 0
    assert r["upstream"]["requests"] >= r["requests"]
    assert set(r["cpu"]) == {"upstream", "load_generator"} and r["limited_by"]


@needs_locust
def test_memory_per_simulated_user_is_bounded(tmp_path: Path) -> None:
    """Each user holds a session and one stream's grader (never the stream): Locust's peak
    memory grows by well under a MiB per user (figures: bench_load_memory.py)."""
    peaks = {}
    for users in (5, 60):
        (tmp_path / str(users)).mkdir()
        _, r = _load(tmp_path / str(users), set(), "--speed", "0", users=users, seconds=4)
        assert r["requests"] >= users, r  # each user streamed (how often: the machine's load)
        peaks[users] = r["memory"]["load_generator_max_rss_mb"]
    per_user = (peaks[60] - peaks[5]) / 55
    assert per_user < 1.0, peaks


@needs_locust
def test_text_report(tmp_path: Path) -> None:
    _load(tmp_path, {"load-corrupt"}, *TEXT, "--format", "text", users=10, seconds=4)
    text = (tmp_path / "report.json").read_text()
    assert text.startswith("streams ") and "diff:lost:text" in text


# -- the parts, without Locust's run -------------------------------------------------------


def _outcome(name: str, ok: bool, ttft: float, *errors: str) -> Outcome:
    return Outcome(name, 200, ok, list(errors), [], errors[0] if errors else "", ttft, [0.01],
                   ttft + 0.1, 100)  # fmt: skip


def test_stats_are_bounded_and_merge() -> None:
    a, b = LoadStats(), LoadStats()
    for i in range(20000):
        ok = i % 10 != 0
        errors = () if ok else ("diff:lost:text",)
        a.add(_outcome("x/text", ok, 0.2 + (i % 100) / 1000, *errors), 1000 + i / 1000)
    assert len(a.ttft.buckets) < 40  # a histogram, not the samples
    b.merge(a.to_dict())
    r = b.report()
    assert r["requests"] == 20000 and r["nonconforming"] == 2000 and r["nonconforming_rate"] == 0.1
    assert 245 <= r["ttft_ms"]["p50"] <= 255 and r["diff_kinds"] == {"lost": 2000}


def test_histogram_percentiles_within_two_percent() -> None:
    h = Histogram()
    for ms in range(1, 1001):
        h.add(ms / 1000)
    for q, want in ((0.5, 500), (0.95, 950), (0.99, 990)):
        got = h.percentile(q)
        assert got is not None and abs(got - want) / want < 0.02


def test_text_report_snapshot() -> None:
    s = LoadStats()
    for i in range(40):
        bad = i % 4 == 0
        errors = ("diff:changed:text",) if bad else ()
        s.add(
            _outcome("anthropic/<b>text</b>" if bad else "openai/text", not bad, 0.25, *errors),
            100 + i / 10,
        )
    r = s.report(cpu={"upstream": 0.12, "load_generator": 0.5}, limited_by=["the gateway"])
    snapshot.compare(SNAPSHOTS / "load-report.txt", text_report(r))


def test_tags_name_their_scenario() -> None:
    settings = Settings(gateway="http://127.0.0.1:1", upstream="http://127.0.0.1:2",
                        suites=["builtin:anthropic"])  # fmt: skip
    plan = prepare(settings, "k")
    assert [sc.index for sc in plan] == list(range(len(plan)))
    one = plan[3]
    assert b"[sseconform:L3.u.1]" in one.body("L3.u.1")
    rules = rules_for_tag(plan, "L3.u.1")
    assert rules is not None and rules[0].recording == one.recording.name
    assert rules_for_tag(plan, "L3.u.1") is not rules  # fresh rules per tag
    assert rules_for_tag(plan, f"L{len(plan)}.u.1") is None
    assert rules_for_tag(plan, "gate.1.x") is None


def test_cli_refusals(tmp_path: Path) -> None:
    assert (
        run_cli("load", "--format", "xml", "--gateway", "http://127.0.0.1:1", cwd=tmp_path).code
        == 2
    )
    no_port = run_cli("load", "--gateway", "http://127.0.0.1:1", "--write-settings", "s.json",
                      cwd=tmp_path)  # fmt: skip
    assert no_port.code == 2 and "--upstream-port" in no_port.err
    path = run_cli("load", "--print-locustfile", cwd=tmp_path)
    assert path.code == 0 and Path(path.out.strip()).is_file()
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    served = run_cli("load", "--serve-upstream", str(bad), cwd=tmp_path)
    assert served.code == 2 and "not a settings file" in served.err
