"""Rule docs name client versions in one place only: the measured text generated from the
client matrix (``rules/measured.json``). Prose a rule module carries says what a client does,
never which version, so a new pin cannot leave it stale."""

from __future__ import annotations

import re

from sseconform.rules.catalog import DOCS_BESIDE, RULES, doc
from sseconform.rules.docs import EXAMPLES
from tools.rule_examples import HAND_WRITTEN, ROOT, generated, serialised

VERSIONED = re.compile(
    r"(openai-python|anthropic-python|@anthropic-ai/sdk|@ai-sdk/[\w-]+|langchain-openai|"
    r"Claude Code|Codex CLI|\bai)[ @]v?\d+\.\d+"
)


def test_no_rule_prose_names_a_client_version() -> None:
    found = [
        (code, field, m.group(0))
        for code, d in DOCS_BESIDE.items()
        for field in ("what", "why", "clients", "fix")
        for m in VERSIONED.finditer(getattr(d, field))
    ]
    assert not found, found


def test_the_measured_text_names_the_versions() -> None:
    measured = doc("A003").which_clients
    assert measured.startswith("Measured (tests/interop/matrix)")
    assert VERSIONED.search(measured)


def test_examples_are_cut_from_the_cases() -> None:
    """examples.json is what the failing cases give today."""
    assert EXAMPLES.read_text(encoding="utf-8") == serialised(generated()), (
        "sseconform/rules/examples.json disagrees with the case folders: run "
        "`python -m tools.rule_examples --write`"
    )


def test_every_rule_has_an_example_and_only_wire_and_http_rules_write_their_own() -> None:
    for code in RULES:
        d = doc(code)
        assert d.example.strip(), code
        own = DOCS_BESIDE[code].example
        if code[0] in HAND_WRITTEN or RULES[code].invariant == "websocket":  # no SSE to cut
            assert own and not d.example_from, code
        else:
            assert not own and d.example_from.startswith("tests/cases/"), code


def test_an_example_is_cut_without_breaking_a_token() -> None:
    """Every data line of a generated example is JSON but for what is elided (J001's case
    is data that is not JSON: shown as it is)."""
    import json

    for code in RULES:
        d = doc(code)
        if not d.example_from or code == "J001":
            continue
        for line in d.example.splitlines():
            if line.startswith("data: {"):
                body = line[6:].replace("{…}", "{}").replace("[…]", "[]").replace(",…", "")
                json.loads(body)  # strings cut inside their quotes keep it JSON


def test_the_rule_command_names_where_the_example_comes_from() -> None:
    from tests.cli.helpers import run_cli

    r = run_cli("rule", "S030", cwd=ROOT)
    example = r.out.split("## Example\n", 1)[1].split("## Fix", 1)[0]
    assert "(cut from tests/cases/responses/fail/S030-" in example
