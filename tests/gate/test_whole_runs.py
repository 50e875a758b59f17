"""The real gateways' suites in CI: a cross-section of the scenarios at the version whose
whole run the baselines hold, every scenario otherwise (``tests/gate/real.py``)."""

from __future__ import annotations

import pytest

from sseconform.gate.profile import PROFILES
from sseconform.gate.suite import builtin_suite
from tests.gate import real

DIALECTS = ("openai", "anthropic", "gemini", "responses")


def test_whole_runs_names_each_shipped_profile() -> None:
    """One version a gateway: a misspelt name would never match, and run whole forever."""
    assert set(real.WHOLE_RUNS) == set(PROFILES)
    assert all(v and v[0].isdigit() for v in real.WHOLE_RUNS.values()), real.WHOLE_RUNS


def test_the_cross_section_names_scenarios_of_every_dialect() -> None:
    """Each name is a built-in scenario (a renamed one would drop out unseen), and each
    dialect keeps a text, an error, a timing and a conversation scenario."""
    names = {s.name.rsplit("/", 1)[-1] for d in DIALECTS for s in builtin_suite(d).scenarios}
    assert names >= real.CROSS_SECTION
    for dialect in DIALECTS:
        own = {s.name.rsplit("/", 1)[-1] for s in builtin_suite(dialect).scenarios}
        picked = own & real.CROSS_SECTION
        assert {"text", "error-mid-stream", "slow-stream", "agent-loop"} <= picked, dialect
        assert len(picked) < len(own) / 1.5, (dialect, picked)  # a cross-section, not all


@pytest.mark.parametrize("full", [False, True])
def test_chosen_runs_everything_at_a_new_version_or_when_full(
    full: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(real, "TESTS_FULL", full)
    every = {f"messages/{s.name}" for d in DIALECTS for s in builtin_suite(d).scenarios}
    pinned = real.WHOLE_RUNS["litellm"]
    names, only = real.chosen(every, "litellm", pinned)
    if full:
        assert (names, only) == (every, [])
    else:
        assert names < every and "messages/anthropic/text" in names
        assert only[::2] == ["--only"] * len(names) and set(only[1::2]) == names
    assert real.chosen(every, "litellm", pinned + ".1") == (every, [])  # a new pin: whole
    assert "every scenario" in real.extent(len(every), len(every))
    assert f"{len(names)} of {len(every)}" in real.extent(len(names), len(every)) or full
