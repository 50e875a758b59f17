"""The documentation site's pages about the gate's own findings, as Markdown: a page per gate
rule (timing, expect, transport, upstream, diff, history), rendered as a grammar rule's page
is (:func:`sseconform.rules.pages.rule_page`), and their index. ``docs/hooks.py`` puts them
into the build beside the grammar rules' pages."""

from __future__ import annotations

from sseconform.gate.rules import FAMILIES, budget, ordered
from sseconform.rules.pages import rule_page

__all__ = ["gate_page_path", "gate_pages"]


def gate_page_path(code: str) -> str:
    """Where a gate finding's page is: ``gate/transport-silent.md``."""
    return "gate/" + code.replace(":", "-") + ".md"


def gate_pages() -> dict[str, str]:
    """Every gate finding's page, and the index of them: site path -> Markdown."""
    pages: dict[str, str] = {}
    for r in ordered():
        rows = [("Budget", budget(r).removeprefix("budget: "))] if budget(r) else []
        pages[gate_page_path(r.code)] = rule_page(r.code, *rows)
    index = [
        "# Gate findings",
        "",
        "What `gate`, `diff` and `load` report besides the grammar rules: each family, then "
        "each code with its page.",
        "",
        *(f"- **{name}**: {text}" for name, text in FAMILIES.items()),
        "",
        "| code | severity | what |",
        "|---|---|---|",
        *(
            f"| [{r.code}]({gate_page_path(r.code).removeprefix('gate/')}) | {r.severity} | "
            f"{r.summary.replace('|', '/')} |"
            for r in ordered()
        ),
        "",
    ]
    pages["gate/index.md"] = "\n".join(index)
    return pages
