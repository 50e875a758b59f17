"""The documentation site's pages about the gate's own findings, as Markdown: a page per
timing rule (its docs, as ``sseconform rule timing:CODE`` prints them) and per expectation,
transport, upstream and diff code (its paragraph, as ``sseconform rule transport:silent``
prints it). ``docs/hooks.py`` puts them into the build beside the grammar rules' pages."""

from __future__ import annotations

from sseconform.gate.explain import codes, first_sentence
from sseconform.gate.timing_rules import RULES as TIMING_RULES

__all__ = ["gate_page_path", "gate_pages"]

#: What each family of the gate's findings is about, in a sentence.
FAMILIES = {
    "timing": "When the gateway passed each piece on, against the upstream's own timing.",
    "expect": "What the scenario expected of the gateway's answer as a whole.",
    "transport": "How the gateway's answer travelled: whether it came, ended, and stayed "
    "within the scenario's bounds.",
    "upstream": "Whether the scenario was tested at all: the upstream reached, its fault fired.",
    "diff": "What the gateway changed of the upstream's content on its way to the client.",
}


def gate_page_path(code: str) -> str:
    """Where a gate finding's page is: ``gate/transport-silent.md``."""
    return "gate/" + code.replace(":", "-") + ".md"


def gate_pages() -> dict[str, str]:
    """Every gate finding's page, and the index of them: site path -> Markdown."""
    pages: dict[str, str] = {}
    rows: list[tuple[str, str, str]] = []
    for t in TIMING_RULES:
        d = t.doc
        budget = f"budget: `{t.budget}`" if t.budget else "no budget"
        pages[gate_page_path(t.key)] = "\n".join(
            [f"# {t.key}", "", f"*{t.severity}; gate's timing, {budget}*", "", t.summary, "",
             "## What it does", "", d.what, "", "## Why it matters", "", d.why, "",
             "## Which clients break", "", d.which_clients, "", "## Fix", "", d.fix, ""]
        )  # fmt: skip
        rows.append((t.key, t.severity, t.summary))
    for code, text in codes().items():
        family = code.split(":", 1)[0]
        pages[gate_page_path(code)] = (
            f"# {code}\n\n*gate's {family} finding*\n\n{FAMILIES[family]}\n\n{text}\n\n"
            f"`sseconform rule {code}` prints this page.\n"
        )
        rows.append((code, "", first_sentence(text)))
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
            f"| [{code}]({gate_page_path(code).removeprefix('gate/')}) | {sev or '-'} | "
            f"{what.replace('|', '/')} |"
            for code, sev, what in rows
        ),
        "",
    ]
    pages["gate/index.md"] = "\n".join(index)
    return pages
