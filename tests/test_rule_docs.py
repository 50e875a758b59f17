"""Rule docs name client versions in one place only: the measured text generated from the
client matrix (``rules/measured.json``). Prose a rule module carries says what a client does,
never which version, so a new pin cannot leave it stale."""

from __future__ import annotations

import re

from sseconform.rules.catalog import DOCS_BESIDE, doc

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
