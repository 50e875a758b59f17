"""The client matrix (``tests/interop/matrix/<grammar>.json``) is current for the light clients.

Each light client runs over every case of its grammar, as ``python -m tests.interop.matrix.run``
does (langchain-openai, ``Client.sampled``, over the changed cases and a sample at its
committed version, as the heavy clients; every case with ``SSECONFORM_TESTS_FULL=1``); the
outcomes must be the committed ones, and every pass case must be ``ok`` (but for the
``known`` entries of ``tests/interop/matrix/expect/``). A client that is not installed is
skipped, unless ``SSECONFORM_REQUIRE_MATRIX=1``.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from tests.interop.matrix.cases import GRAMMARS, discover
from tests.interop.matrix.check import heavy_subset, problems
from tests.interop.matrix.clients import Client, light_clients
from tests.interop.matrix.outcome import OUTCOMES
from tests.interop.matrix.run import load
from tools.measured import clients_text, severity

REQUIRE = os.environ.get("SSECONFORM_REQUIRE_MATRIX") == "1"
LIGHT = light_clients()


@pytest.mark.parametrize("client", LIGHT, ids=lambda c: f"{c.grammar}-{c.name}")
def test_matrix_is_current(client: Client) -> None:
    if client.version() is None:
        if REQUIRE:
            pytest.fail(f"{client.name} is not installed: {client.missing}")
        pytest.skip(f"{client.name} is not installed: {client.missing}")
    found = problems(client.grammar, client)
    assert not found, "\n".join(found)


def test_a_heavy_client_reruns_every_changed_case_and_a_sample() -> None:
    """What CI runs a heavy CLI over at its committed version: a case whose bytes (or
    corrections) changed, or that has no row, always; of the unchanged, a few per outcome."""
    grammar = "gemini"
    committed = json.loads(json.dumps(load(grammar)["clients"]["gemini-cli"]))
    client = Client("gemini-cli", grammar, lambda: "0", lambda jobs, server: {}, "", heavy=True)
    ids = sorted(committed["cases"])
    edited, new = ids[-1], ids[-2]
    committed["cases"][edited]["sha"] = "0" * 16
    del committed["cases"][new]
    chosen = heavy_subset(grammar, client, committed)
    assert {edited, new} <= chosen
    rest = chosen - {edited, new}
    by_outcome: dict[str, int] = {}
    for case in rest:
        outcome = committed["cases"][case]["outcome"]
        by_outcome[outcome] = by_outcome.get(outcome, 0) + 1
    outcomes = {r["outcome"] for c, r in committed["cases"].items() if c != edited}
    assert set(by_outcome) == outcomes, "every outcome sampled"
    assert all(n <= client.sample for n in by_outcome.values()), by_outcome
    limited = Client(
        "x", grammar, lambda: "0", lambda jobs, server: {}, "", cases=frozenset(ids[:2])
    )
    assert heavy_subset(grammar, limited, committed) <= set(ids[:2])


@pytest.mark.parametrize("grammar", GRAMMARS)
def test_matrix_file_is_well_formed(grammar: str) -> None:
    data = load(grammar)
    cases = {case.id for case in discover(grammar)}
    for name, entry in data["clients"].items():
        assert entry["client"]["name"] == name
        assert set(entry["client"]) == {"name", "version"}
        for case, result in entry["cases"].items():
            assert result["outcome"] in OUTCOMES, (name, case)
            assert len(result.get("sha", "")) == 16, f"{name} {case}: no digest of the case"
            assert "127.0.0.1:" not in result["detail"] or "PORT" in result["detail"]
        stale = set(entry["cases"]) - cases
        assert not stale, f"{name} has results for cases that are gone: {sorted(stale)}"
    path = f"tests/interop/matrix/{grammar}.json"
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    with open(path, encoding="utf-8") as fp:
        assert fp.read() == text, f"{path} is not in the sorted form run.py writes"


def test_render_uses_the_matrix() -> None:
    data = {
        "chat": {
            "clients": {
                "a": {
                    "client": {"name": "a", "version": "1.0"},
                    "cases": {
                        "fail/Z001-x": {"outcome": "ok", "detail": "text ''; finish stop"},
                        "fail/Z002-y": {"outcome": "error", "detail": "ValueError: bad"},
                    },
                },
                "b": {
                    "client": {"name": "b", "version": "ai@7 @ai-sdk/x@3"},
                    "cases": {
                        "fail/Z001-x": {
                            "outcome": "error",
                            "detail": "exit 1: API Error: 400 [fell back to non-streaming: Content "
                            "block not found]",
                        }
                    },
                },
            }
        }
    }
    assert severity("Z002", data) == "error"
    assert severity("Z003", data) is None
    assert clients_text("Z001", data) == (
        "Measured (tests/interop/matrix): a 1.0 tolerates it; ai@7 + @ai-sdk/x@3 falls back to "
        "non-streaming (Content block not found), then raises exit 1: API Error: 400."
    )
    only_ok = {"chat": {"clients": {"a": data["chat"]["clients"]["a"]}}}
    assert severity("Z001", only_ok) == "warning"


def test_render_keeps_a_specifications_severity() -> None:
    """An open-responses rule's severity is the specification's, whatever the clients do."""
    from tools.measured import generated

    broken = {"outcome": "error", "detail": "ValueError: bad"}
    fine = {"outcome": "ok", "detail": "text ''; finish stop"}
    data = {
        "open-responses": {
            "clients": {
                "a": {
                    "client": {"name": "a", "version": "1.0"},
                    "cases": {"fail/O011-x": broken, "fail/O003-y": fine},
                }
            }
        }
    }
    table = generated(data)
    note = (
        "Its severity is the specification's (descriptive, not a MUST: a warning), not the "
        "clients'."
    )
    assert table["O011"] == {
        "severity": "warning",
        "rows": [["a 1.0", "raises ValueError: bad", False]],
        "from": "tests/interop/matrix",
        "note": note,
    }
    assert _prose(table["O011"]) == (
        f"Measured (tests/interop/matrix): a 1.0 raises ValueError: bad. {note}"
    )
    assert table["O003"]["severity"] == "error"
    assert _prose(table["O003"]).endswith(
        "Its severity is the specification's (a MUST: an error), not the clients'."
    )


def _prose(found: dict[str, Any]) -> str:
    from sseconform.rules.docs import measured_text

    return measured_text(found["rows"], found["from"], found["note"])


def test_measured_docs_are_the_matrix() -> None:
    """The rules' measured "Which clients break" text is generated from the committed matrix."""
    from sseconform.rules.docs import MEASURED
    from tools.measured import generated, serialised

    assert MEASURED.read_text(encoding="utf-8") == serialised(generated()), (
        "sseconform/rules/measured.json disagrees with the client matrix: run "
        "`python -m tools.measured --write`"
    )


def test_severities_follow_the_matrix() -> None:
    """A rule is an error exactly when a measured client breaks or reads wrong content on one
    of its cases; otherwise a warning (or info, for what the grammar allows). A specification's
    rules (render.SPEC_GRAMMARS) keep the specification's severity, and their docs say so."""
    from sseconform.rules.catalog import RULES, Severity, doc
    from tools.measured import SPEC_GRAMMARS, generated

    wrong = []
    for code, found in generated().items():
        sev = RULES[code].severity
        if RULES[code].grammar in SPEC_GRAMMARS:
            assert found["severity"] == sev.value, code
            assert "Its severity is the specification's" in _prose(found), code
        elif (found["severity"] == "error") != (sev is Severity.ERROR):
            wrong.append(f"{code}: {sev.value}, the matrix implies {found['severity']}")
        assert doc(code).which_clients.startswith(_prose(found)), code
    assert not wrong, "\n".join(wrong)


def test_every_rule_with_a_case_is_measured() -> None:
    """Each rule that has a fail case in a grammar with clients has measured docs."""
    from tools.measured import generated

    table = generated()
    for grammar in GRAMMARS:
        if not load(grammar)["clients"]:
            continue
        fails = {
            c.id.split("/", 1)[1].split("-", 1)[0]
            for c in discover(grammar)
            if c.id.startswith("fail/")
        }
        missing = fails - set(table)
        assert not missing, f"{grammar}: rules with cases but no measurement: {sorted(missing)}"
