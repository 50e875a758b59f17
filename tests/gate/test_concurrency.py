"""``gate --concurrency N``: scenarios in flight at once, each request tagged in its prompt
(``[sseconform:TAG]``) so that the replay upstream answers it with its own scenario's
recording and faults. The verdicts must be the ones a run one at a time gives. How much
faster it is: tests/benchmarks/bench_gate_concurrency.py (never a timed test)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sseconform.demo.gateway import Gateway
from sseconform.gate.aimed import for_endpoint
from sseconform.gate.result import ScenarioResult
from sseconform.gate.runner import run_suite
from sseconform.gate.suite import builtin_suite
from sseconform.replay.routing import tag_of
from tests.gate.test_gate import free_port, gate_cli

#: The upstream dialects each endpoint's runs take (two of four: every kind of scenario, a
#: native pass-through and a translated upstream, at half the time of the whole suite).
DIALECTS = {"chat": ("anthropic/", "openai/"), "responses": ("responses/", "gemini/")}


def _run(tmp: Path, bugs: set[str], concurrency: int, endpoint: str = "chat") -> dict[str, Any]:
    suite = for_endpoint(builtin_suite("all"), endpoint)
    suite.scenarios = [sc for sc in suite.scenarios if sc.name.startswith(DIALECTS[endpoint])]
    suite.speed = 0
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", bugs).running() as gw:
        result = run_suite(suite, gw.url, str(tmp), upstream_port=port, concurrency=concurrency)
    assert [s.name for s in result.scenarios] == [s.name for s in suite.scenarios]
    return {s.name: s for s in result.scenarios}


def _verdicts(got: dict[str, ScenarioResult]) -> dict[str, tuple[str, list[str]]]:
    return {n: (s.verdict, sorted(f.key for f in s.findings)) for n, s in got.items()}


@pytest.mark.parametrize(
    ("bugs", "endpoint"),
    [(set(), "chat"), ({"lose-token", "retry"}, "chat"), ({"done-differs"}, "responses")],
)
def test_concurrent_verdicts_are_the_sequential_ones(
    tmp_path: Path, bugs: set[str], endpoint: str
) -> None:
    one = _run(tmp_path / "one", bugs, 1, endpoint)
    eight = _run(tmp_path / "eight", bugs, 8, endpoint)
    assert _verdicts(eight) == _verdicts(one)
    if bugs:  # the comparison has failures in it, not only passes
        assert any(s.verdict == "fail" for s in one.values())
    # every upstream request was its own scenario's: the recording each was answered with
    for name, s in eight.items():
        assert s.upstream_requests == one[name].upstream_requests, name
        assert [x.split(" -> ")[1].split()[0] for x in s.upstream_log] == [
            x.split(" -> ")[1].split()[0] for x in one[name].upstream_log
        ], name


def test_a_gateway_that_loses_the_tag_is_told_apart(tmp_path: Path) -> None:
    """Under concurrency a request without its tag cannot be placed: the scenario is
    unreached (nothing was tested), not failed; one at a time it is still placed."""
    alone = _run(tmp_path / "one", {"strip-tag"}, 1)
    assert all(s.verdict == "pass" for s in alone.values()), _verdicts(alone)
    together = _run(tmp_path / "eight", {"strip-tag"}, 8)
    assert {s.verdict for s in together.values()} == {"unreached"}


def test_tags_are_found_in_any_body() -> None:
    assert tag_of(b'{"messages":[{"content":"hi [sseconform:ab.3.x-y/z] there"}]}') == "ab.3.x-y/z"
    assert tag_of(b'{"contents":[{"parts":[{"text":"[sseconform:a]"}]}]}') == "a"
    assert tag_of(b'{"messages":[{"content":"[sseconform:]"}]}') is None
    assert tag_of(b"[sseconform:<script>]") is None


def test_cli_concurrency(tmp_path: Path) -> None:
    port = free_port()
    with Gateway(f"http://127.0.0.1:{port}", set()).running() as gw:
        run = gate_cli(tmp_path, gw.url, port, "--concurrency", "4", only="anthropic/*")
        bad = gate_cli(tmp_path, gw.url, port, "--concurrency", "0")
    assert run.code == 0, run.both
    heads = [
        line for line in run.out.splitlines() if line.startswith("PASS ") and "(expect" in line
    ]
    order = [s.name for s in builtin_suite("anthropic").scenarios]
    assert [line.split()[1] for line in heads] == order  # the suite's order, as they finish
    assert bad.code == 2 and "concurrency" in bad.err
