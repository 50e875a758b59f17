"""``load --render`` reads a report someone else may have written: every field the page
shows is checked for its type first (a wrong one is refused with its JSON pointer, exit 2),
and every string is escaped in the page and the text."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.helpers import run_cli
from tests.html.dom import parse
from tests.html.test_load_page import _report

EVIL = '"><script>alert(1)</script><img src=x onerror=alert(2)>\x1b[2J'


def _set(report: dict[str, Any], pointer: str, value: Any) -> dict[str, Any]:
    out = copy.deepcopy(report)
    *parents, last = [int(p) if p.isdigit() else p for p in pointer.strip("/").split("/")]
    node: Any = out
    for p in parents:
        node = node[p]
    node[last] = value
    return out


WRONG = {
    "/requests": "12",
    "/nonconforming": -1,
    "/nonconforming_rate": "<b>",
    "/ttft_ms/p50": "fast",
    "/throughput/seconds": None,
    "/timeline/0/streams": "<script>",
    "/timeline/0/second": 1e300,
    "/levels/0/users": [1],
    "/codes/E003": "many",
    "/scenarios/openai~1text": {"requests": "x", "nonconforming": 0},
    "/budget": {"passed": "yes", "overhead_p99_ms": 1, "budget_ms": 1},
    "/capacity": {"summary": 5},
    "/limited_by": "the gateway",
}


@pytest.mark.parametrize("pointer", sorted(WRONG))
def test_a_field_of_the_wrong_type_is_refused_with_its_place(tmp_path: Path, pointer: str) -> None:
    report = _report(8, 3)
    key = pointer.replace("~1", "/")
    if key.startswith("/scenarios/"):
        report["scenarios"]["openai/text"] = WRONG[pointer]  # type: ignore[index]
    else:
        report = _set(report, key, WRONG[pointer])
    (tmp_path / "r.json").write_text(json.dumps(report), encoding="utf-8")
    for fmt in ("html", "text"):
        r = run_cli("load", "--render", "r.json", "--format", fmt, cwd=tmp_path)
        assert r.code == 2, r.both
        assert "r.json: not a load report" in r.err
        assert pointer.split("/")[1] in r.err, r.err


def test_nan_and_infinity_are_not_json(tmp_path: Path) -> None:
    text = json.dumps(_report(8, 3)).replace(
        '"nonconforming_rate": 0.', '"nonconforming_rate": NaN, "x": 0.'
    )
    (tmp_path / "r.json").write_text(text, encoding="utf-8")
    r = run_cli("load", "--render", "r.json", cwd=tmp_path)
    assert r.code == 2 and "NaN is not JSON" in r.err, r.both


def test_every_string_is_escaped(tmp_path: Path) -> None:
    report: dict[str, Any] = _report(8, 3)  # a JSON report, rewritten field by field
    report["settings"] = {"gateway": EVIL, "users": EVIL, "run_time": EVIL, "speed": EVIL}
    report["limited_by"] = [EVIL]
    report["capacity"] = {"summary": EVIL}
    report["examples"] = {k: EVIL for k in report["codes"]}
    report["codes"] = {EVIL: 3, **report["codes"]}
    report["scenarios"] = {EVIL: {"requests": 3, "nonconforming": 1}}
    (tmp_path / "r.json").write_text(json.dumps(report), encoding="utf-8")
    r = run_cli("load", "--render", "r.json", "--format", "html", "-o", "p.html", cwd=tmp_path)
    assert r.code == 0, r.both
    page = (tmp_path / "p.html").read_text(encoding="utf-8")
    dom = parse(page)
    assert len(dom.find_all("script")) == 1  # the page's own
    assert not dom.find_all("img")
    assert "\x1b" not in page and "<script>alert" not in page
    text = run_cli("load", "--render", "r.json", cwd=tmp_path)
    assert text.code == 0 and "\x1b" not in text.out
