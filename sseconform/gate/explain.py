"""What the gate's own findings mean, from their rules' docs (:mod:`sseconform.gate.rules`;
a check finding is a grammar rule: ``sseconform rule CODE``).

One short paragraph per rule, shown beside each finding in the HTML report, so a reader who
did not write the gateway knows what happened and why a client cares.
"""

from __future__ import annotations

from sseconform.gate import rules as _registered  # noqa: F401  (the gate's rules, registered)
from sseconform.rules.catalog import GATE_RULES, doc

__all__ = ["codes", "explain", "first_sentence"]


def explain(source: str, code: str) -> str:
    """The paragraph for a gate finding (``diff``, ``expect``, ``transport``, ``timing``,
    ...): its rule's what and why; empty for a check finding, whose docs are its rule's."""
    key = f"{source}:{code}"
    if key not in GATE_RULES:
        return ""
    d = doc(key)
    return f"{d.what} {d.why}"


def codes() -> dict[str, str]:
    """Every gate rule (``transport:silent``, ``timing:first-token``) with its paragraph:
    for ``sseconform rules`` and the site."""
    return {key: explain(*key.split(":", 1)) for key in sorted(GATE_RULES)}


def first_sentence(text: str) -> str:
    """A paragraph's first sentence, as a finding's one-line description (site, SARIF)."""
    return text.split(". ")[0].rstrip(".") + "."
