"""``load --format html`` (and ``--render`` of saved JSON reports): conformance and TTFT over
time and per concurrency level, the findings with what they mean, several runs side by
side; examples from the wire stay text."""

from __future__ import annotations

import json
from pathlib import Path

from sseconform.html.load import render
from sseconform.html.page import SCRIPT
from sseconform.load.plan import StreamOutcome
from sseconform.load.stats import LoadStats
from tests.cli.helpers import run_cli
from tests.html.dom import parse

EVIL = "anthropic/<script>alert(1)</script>\x1b[2J"


def _report(users: int, bad_every: int) -> dict[str, object]:
    """Twelve seconds of a run ramping up to ``users``, every ``bad_every``-th stream bad."""
    s = LoadStats()
    n = 0
    for sec in range(12):
        level = min(users, (sec + 1) * max(1, users // 4))
        for i in range(level):
            n += 1
            bad = n % bad_every == 0
            errors = ["diff:lost:text", "E003"] if bad else []
            name = EVIL if bad else "openai/text"
            o = StreamOutcome(name, 200, not bad, errors, [], f"{EVIL} lost" if bad else "",
                        0.2 + users / 1000, [0.01], 0.5, 100)  # fmt: skip
            s.add(o, 1000 + sec + i / (level + 1), level)
    return s.report(settings={"gateway": "http://127.0.0.1:1", "users": users,
                              "run_time": "12s", "speed": 1.0},
                    limited_by=["the gateway"])  # fmt: skip


def test_over_time_and_per_level() -> None:
    r = _report(20, 10)
    dom = parse(render([r]))
    svg = dom.find("svg", id="over-time-1")
    ok_bars = svg.find_all("rect", "ok")
    bad_bars = svg.find_all("rect", "bad")
    timeline = r["timeline"]
    assert isinstance(timeline, list)
    assert len(ok_bars) == len(timeline) == 12
    assert len(bad_bars) == sum(1 for p in timeline if p["nonconforming"])
    levels = dom.find("table", "levels").find_all("tr")[1:]
    assert [row.find("td").text for row in levels] == ["5", "10", "15", "20"]
    total = sum(int(row.find_all("td")[2].text) for row in levels)
    assert total == r["requests"]
    keys = [n.attrs["data-key"] for n in dom.find_all("li", "finding")]
    assert sorted(keys) == ["E003", "diff:lost:text"]
    assert "What it does." in dom.find("li", "finding", data_key="E003").text


def test_examples_from_the_wire_stay_text() -> None:
    text = render([_report(8, 3)])
    dom = parse(text)
    assert [s.text for s in dom.find_all("script")] == [SCRIPT]
    assert "\x1b" not in text and "<script>alert(1)" not in text
    assert "anthropic/<script>alert(1)</script>\\x1b[2J" in dom.text


def test_saved_reports_render_side_by_side(tmp_path: Path) -> None:
    for users in (50, 100, 200):
        (tmp_path / f"l{users}.json").write_text(json.dumps(_report(users, 50)))
    run = run_cli(
        "load", "--render", "l50.json", "--render", "l100.json", "--render", "l200.json",
        "--format", "html", "-o", "runs.html", cwd=tmp_path,
    )  # fmt: skip
    assert run.code == 0, run.both
    dom = parse((tmp_path / "runs.html").read_text(encoding="utf-8"))
    rows = dom.find("section", id="runs").find_all("tr")[1:]
    assert [r.find_all("td")[1].text for r in rows] == ["50", "100", "200"]
    assert len(dom.find_all("section", "run")) == 3
    text = run_cli("load", "--render", "l50.json", cwd=tmp_path)
    assert text.code == 0 and "streams" in text.out


def test_a_file_that_is_not_a_report_is_refused(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"requests": 1,\n oops}')
    (tmp_path / "other.json").write_text('{"a": 1}')
    bad = run_cli("load", "--render", "bad.json", "--format", "html", cwd=tmp_path)
    assert bad.code == 2 and "bad.json: not a JSON report (line 2, column 2)" in bad.err
    assert "Traceback" not in bad.both
    other = run_cli("load", "--render", "other.json", "--format", "html", cwd=tmp_path)
    assert other.code == 2 and "other.json: not a load report" in other.err
    gone = run_cli("load", "--render", "gone.json", cwd=tmp_path)
    assert gone.code == 2 and "gone.json: cannot read it" in gone.err
