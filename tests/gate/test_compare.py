"""Release against release: ``sseconform compare OLD NEW`` (and ``gate --compare OLD``) reads
two gate JSON reports and says, scenario by scenario and error key by error key, what the new
run broke, fixed and changed; exit 1 when something regressed."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from sseconform.demo.gateway import Gateway
from sseconform.errors import UsageError
from sseconform.gate.compare import compare, read_report, write_comparison
from tests.cli.helpers import run_cli
from tests.gate.test_gate import free_port, gate_cli
from tests.snapshot import compare as snapshot

SNAPSHOTS = Path(__file__).parent / "snapshots"


def _report(**scenarios: tuple[str, list[str]]) -> dict[str, Any]:
    """A gate JSON report: each scenario's verdict and error keys."""
    return {
        "gateway": "http://127.0.0.1:4000",
        "scenarios": [
            {
                "name": name.replace("_", "/"),
                "verdict": verdict,
                "findings": [{"key": k, "severity": "error"} for k in keys]
                + [{"key": "E002", "severity": "warning"}],
            }
            for name, (verdict, keys) in scenarios.items()
        ],
    }


OLD = _report(
    chat_text=("pass", []),
    chat_tool=("pass", []),
    chat_parallel=("fail", ["I004"]),
    chat_reasoning=("fail", ["diff:lost:reasoning"]),
    chat_usage=("known", ["diff:usage:prompt_tokens"]),
    chat_error=("fail", ["E003"]),
    chat_stall=("pass", []),
    chat_gone=("pass", []),
)
NEW = _report(
    chat_text=("pass", []),
    chat_tool=("fail", ["T001", "T002"]),
    chat_parallel=("pass", []),
    chat_reasoning=("fail", ["diff:lost:reasoning", "request:lost:reasoning"]),
    chat_usage=("known", ["diff:usage:prompt_tokens"]),
    chat_error=("fail", ["E003"]),
    chat_stall=("not-graded", []),
    chat_added=("pass", []),
)


def _written(fmt: str) -> str:
    out = io.StringIO()
    c = compare(read_report("old.json", json.dumps(OLD)), read_report("new.json", json.dumps(NEW)))
    write_comparison(c, out, fmt)
    return out.getvalue()


def test_broke_fixed_changed_moved_new_and_gone() -> None:
    c = compare(read_report("old.json", json.dumps(OLD)), read_report("new.json", json.dumps(NEW)))
    assert [x.name for x in c.broke] == ["chat/tool"]
    assert c.broke[0].gained == ["T001", "T002"]
    assert [x.name for x in c.fixed] == ["chat/parallel"] and c.fixed[0].lost == ["I004"]
    assert [(x.name, x.gained, x.lost) for x in c.changed] == [
        ("chat/reasoning", ["request:lost:reasoning"], [])
    ]
    assert [(x.name, x.after) for x in c.other] == [("chat/stall", "not-graded")]
    assert (c.added, c.removed, c.same) == (["chat/added"], ["chat/gone"], 3)
    assert c.regressed


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_the_table_reads_as_one(fmt: str) -> None:
    snapshot(SNAPSHOTS / f"compare.{'md' if fmt == 'markdown' else 'txt'}", _written(fmt))


def test_the_json_document() -> None:
    doc = json.loads(_written("json"))
    assert doc["regressed"] is True
    assert doc["broke"] == [{"scenario": "chat/tool", "before": "pass", "after": "fail",
                             "gained": ["T001", "T002"], "lost": []}]  # fmt: skip
    assert [x["scenario"] for x in doc["fixed"]] == ["chat/parallel"]
    assert doc["new_scenarios"] == ["chat/added"] and doc["gone_scenarios"] == ["chat/gone"]


def test_only_fixes_is_no_regression() -> None:
    old = _report(a=("fail", ["F001"]), b=("pass", []))
    new = _report(a=("pass", []), b=("pass", []))
    c = compare(read_report("o", json.dumps(old)), read_report("n", json.dumps(new)))
    assert not c.regressed and [x.name for x in c.fixed] == ["a"]


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{"scenarios": [}', "r.json:1:16: not JSON"),
        ("[]", "r.json: not a gate JSON report"),
        ('{"scenarios": [{"verdict": "pass"}]}', "r.json: scenarios[0]: a scenario needs a name"),
        ('{"scenarios": [{"name": "a"}]}', "scenarios[0] (a): a scenario needs a verdict"),
        ('{"scenarios": [{"name": "a", "verdict": "pass", "findings": []}, '
         '{"name": "a", "verdict": "pass", "findings": []}]}', "scenarios[1]: 'a' twice"),
    ],
)  # fmt: skip
def test_a_report_that_is_none_is_refused_with_where(text: str, said: str) -> None:
    with pytest.raises(UsageError) as info:
        read_report("r.json", text)
    assert said in str(info.value)


def test_the_command_exits_1_on_a_regression_and_2_on_bad_input(tmp_path: Path) -> None:
    (tmp_path / "old.json").write_text(json.dumps(OLD))
    (tmp_path / "new.json").write_text(json.dumps(NEW))
    r = run_cli("compare", "old.json", "new.json", cwd=tmp_path)
    assert r.code == 1 and r.out == _written("text")
    r = run_cli("compare", "new.json", "new.json", "--format", "markdown", cwd=tmp_path)
    assert r.code == 0 and "0 broke, 0 fixed" in r.out
    (tmp_path / "bad.json").write_bytes(b"\xff\xfe")
    r = run_cli("compare", "old.json", "bad.json", cwd=tmp_path)
    assert r.code == 2 and "bad.json: byte 0: not UTF-8" in r.err and "Traceback" not in r.err
    r = run_cli("compare", "old.json", "missing.json", cwd=tmp_path)
    assert r.code == 2 and "missing.json: no such file" in r.err


def test_gate_compare_names_what_a_new_release_broke(tmp_path: Path) -> None:
    """The same suite through a faithful gateway, then through one that loses a token: the
    second run's --compare names the scenarios it broke."""
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", set()).running() as gw:
        first = gate_cli(tmp_path, gw.url, port, "--format", "json", "--out", "a")
    assert first.code == 0, first.err
    (tmp_path / "release-1.json").write_text(first.out)
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", {"lose-token"}).running() as gw:
        second = gate_cli(tmp_path, gw.url, port, "--compare", "release-1.json", "--out", "b")
    assert second.code == 1
    assert "sseconform compare: release-1.json -> this run" in second.err
    assert "  BROKE    anthropic/text" in second.err
    r = run_cli("gate", "--gateway", "http://127.0.0.1:9", "--compare", "nothing.json",
                "--out", "c", cwd=tmp_path)  # fmt: skip
    assert r.code == 2 and "nothing.json: no such file" in r.err
