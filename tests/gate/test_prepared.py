"""A scenario is prepared once, the same way for ``gate`` and ``load``: the same request,
bounds, references and upstream rules, and each of the upstream's two answers planned once
however many times the scenario runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from sseconform.gate import references as refs_module
from sseconform.gate.aimed import for_endpoint
from sseconform.gate.prepared import Prepared, not_applicable, prepare
from sseconform.gate.request import GatewayRequests
from sseconform.gate.runner import SuiteRun
from sseconform.gate.suite import load_suite
from sseconform.gate.upstream import Upstream
from sseconform.load.plan import LoadSettings
from sseconform.load.plan import prepare as load_plan
from sseconform.replay.plan import make_plan
from sseconform.replay.server import ReplayServer

GATEWAY, UPSTREAM = "http://127.0.0.1:1", "http://127.0.0.1:2"
ENDPOINTS = ["chat", "messages", "responses"]


def _gate_prepared(endpoint: str, tmp_path: Path) -> list[Prepared]:
    suite = for_endpoint(load_suite("builtin:all"), endpoint)
    up = Upstream(suite.scenarios)
    run = SuiteRun(suite, GatewayRequests(suite, GATEWAY, UPSTREAM, "k"), cast(ReplayServer, None),
              str(tmp_path))  # fmt: skip
    out = []
    for sc in suite.scenarios:
        ready = run.prepared(sc, up.by_scenario[sc.name])
        if isinstance(ready, Prepared):
            out.append(ready)
    return out


@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_gate_and_load_prepare_the_same_scenarios(endpoint: str, tmp_path: Path) -> None:
    gated = _gate_prepared(endpoint, tmp_path)
    settings = LoadSettings(GATEWAY, UPSTREAM, endpoints=[endpoint], speed=1.0)
    loaded = load_plan(settings, "k")
    assert [p.name for p in gated] == [p.name for p in loaded]
    assert gated, endpoint
    for g, ld in zip(gated, loaded, strict=True):
        assert g.body("t.1") == ld.body("t.1"), g.name
        assert (g.url, g.headers, g.deadline, g.max_bytes) == (
            ld.url, ld.headers, ld.deadline, ld.max_bytes,
        ), g.name  # fmt: skip
        assert g.recording is ld.recording or g.recording.body == ld.recording.body, g.name
        assert (g.ref.expect, g.ref.faults, g.ref.dropped, g.ref.seconds) == (
            ld.ref.expect, ld.ref.faults, ld.ref.dropped, ld.ref.seconds,
        ), g.name  # fmt: skip
        assert g.fresh_rules() == ld.fresh_rules(), g.name


def test_each_answer_is_planned_once_however_often_it_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    planned: list[Any] = []
    real = make_plan

    def counting(*args: Any, **kwargs: Any) -> Any:
        planned.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(refs_module, "make_plan", counting)
    suite = for_endpoint(load_suite("builtin:all"), "chat")
    up = Upstream(suite.scenarios)
    run = SuiteRun(suite, GatewayRequests(suite, GATEWAY, UPSTREAM, "k"), cast(ReplayServer, None),
              str(tmp_path))  # fmt: skip
    applicable = [sc for sc in suite.scenarios if not_applicable(suite, sc) is None]
    for _ in range(3):  # a run, its timing confirmation, and once more
        for sc in applicable:
            first = run.prepared(sc, up.by_scenario[sc.name])
            assert first is run.prepared(sc, up.by_scenario[sc.name])
    # a faulted scenario: the faulted answer and the clean one; any other: its one answer
    faulted = sum(1 for sc in applicable if sc.fault)
    assert 0 < faulted < len(applicable)
    assert len(planned) == 2 * faulted + (len(applicable) - faulted)


def test_fresh_rules_count_from_zero_and_keep_every_field() -> None:
    suite = for_endpoint(load_suite("builtin:all"), "chat")
    up = Upstream(suite.scenarios)
    requests = GatewayRequests(suite, GATEWAY, UPSTREAM, "k")
    faulted = next(sc for sc in suite.scenarios if sc.fault_times is not None)
    ready = prepare(suite, requests, faulted, up.by_scenario[faulted.name])
    rules = ready.fresh_rules()
    rules[0].used = 5
    again = ready.fresh_rules()
    assert again[0].used == 0 and again[0] is not rules[0]
    assert [(r.recording, r.path, r.fault, r.times) for r in again] == [
        (r.recording, r.path, r.fault, r.times) for r in ready.rules
    ]
