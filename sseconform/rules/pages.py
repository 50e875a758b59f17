"""The documentation site's pages about rules and grammars, as Markdown, from the rule modules.

A rule's page is its module's docs (what it does, why it matters, which clients break with
what the client matrix measured, the example cut from its failing case, the fix), so the site
can never say other than ``sseconform rule CODE``. ``docs/hooks.py`` puts these pages into
the mkdocs build; nothing here is written to disk.
"""

from __future__ import annotations

from sseconform.rules.catalog import (
    BASE_GRAMMAR,
    FAMILIES,
    GATE_FAMILIES,
    GRAMMAR_INVARIANTS,
    GRAMMARS,
    RULES,
    Rule,
    doc,
    lookup,
)
from sseconform.rules.docs import RuleDoc

__all__ = ["grammar_page", "page_path", "rule_page", "rules_index", "site_pages"]

#: What each grammar is, in a sentence: the head of its page.
GRAMMAR_TEXT: dict[str, str] = {
    "chat": (
        "OpenAI `chat.completion.chunk` frames, then `data: [DONE]`: what the OpenAI SDKs, the "
        "Vercel AI SDK and LangChain read from `/v1/chat/completions`. The default grammar."
    ),
    "anthropic": (
        "Anthropic Messages events (`message_start`, content blocks, `message_delta`, "
        "`message_stop`): what the Anthropic SDKs, Claude Code and the AI SDK read from "
        "`/v1/messages`."
    ),
    "responses": (
        "OpenAI Responses API events (`response.created`, items and parts, one terminal "
        "event): what Codex CLI, the Agents SDK and openai-python read from `/v1/responses`."
    ),
    "open-responses": (
        "The Open Responses specification on top of the responses grammar: its schemas, its "
        "event names, `data: [DONE]` and its extensions. For a gateway that claims the "
        "specification."
    ),
}


def page_path(rule: Rule) -> str:
    """Where a rule's page is in the site: its file name carries its code."""
    return f"rules/{rule.code}-{rule.name}.md"


def _fence(text: str) -> str:
    """A code block that holds ``text`` whatever backticks it has."""
    fence = "```"
    while fence in text:
        fence += "`"
    return f"{fence}text\n{text.rstrip(chr(10))}\n{fence}"


def rule_page(code: str, *rows: tuple[str, str]) -> str:
    """One rule's page, a grammar's or the gate's: its identity (and ``rows`` more of it),
    then its docs, each section under its own heading."""
    rule = lookup(code)
    d = doc(code)
    gate = rule.grammar == "gate"
    if gate:
        grammar = "none: the gate's own, a gateway against its upstream"
    else:
        grammar = "every grammar" if rule.grammar == "any" else f"the {rule.grammar} grammar"
    family = (GATE_FAMILIES if gate else FAMILIES)[rule.family]
    out = [
        f"# {rule.code}" if gate else f"# {rule.code} {rule.name}",
        "",
        f"**{rule.summary}**",
        "",
        f"- **Severity:** {rule.severity.value}",
        f"- **Grammar:** {grammar}",
        f"- **Invariant:** {rule.invariant or 'none'}",
        f"- **Family:** {rule.family}: {family}",
        *(f"- **{k}:** {v}" for k, v in rows),
        "",
    ]
    if d.spec:
        out += ["## Specification", "", d.spec, ""]
    out += ["## What it does", "", d.what, "", "## Why it matters", "", d.why, ""]
    out += ["## Which clients break", "", *_clients(d), ""]
    if d.example:
        out += ["## Example", "", _fence(d.example), ""]
        if d.example_from:
            out += [f"Cut from `{d.example_from}`.", ""]
    lines = d.fix.splitlines()
    if lines and not lines[0].startswith(("data:", "event:")) and len(lines) > 1:
        out += ["## How to fix it", "", lines[0], "", _fence("\n".join(lines[1:])), ""]
    elif lines and lines[0].startswith(("data:", "event:")):
        out += ["## How to fix it", "", _fence(d.fix), ""]
    else:
        out += ["## How to fix it", "", d.fix, ""]
    out += [f"`sseconform rule {rule.code}` prints this page in a terminal.", ""]
    return "\n".join(out)


def _clients(d: RuleDoc) -> list[str]:
    """ "Which clients break": what the client matrix measured as a table, a client a row,
    then what the rule's module says; prose alone where nothing was measured."""
    if not d.measured_rows:
        return [d.which_clients]
    out = [f"Measured ({d.measured_from}):", "", "| Client | What it does |", "|---|---|"]
    out += [f"| {_cell(c)} | {_cell(what)} |" for c, what in d.measured_rows]
    return [*out, "", *(p for p in (d.measured_note, d.clients) if p)]


def _cell(text: str) -> str:
    """Text in a Markdown table's cell: its pipes escaped."""
    return text.replace("|", "\\|")


def _table(rules: list[Rule], up: str) -> list[str]:
    out = ["| Code | Name | Severity | Summary |", "|---|---|---|---|"]
    for r in rules:
        link = f"{up}{page_path(r).removeprefix('rules/')}"
        summary = r.summary.replace("|", "\\|")
        out.append(f"| [{r.code}]({link}) | {r.name} | {r.severity.value} | {summary} |")
    return out


def rules_index() -> str:
    """Every rule, by family."""
    out = ["# Rules", "", f"{len(RULES)} rules, each with its page. A code never changes.", ""]
    for family, what in FAMILIES.items():
        rules = [r for r in RULES.values() if r.family == family]
        if rules:
            out += [f"## {family}: {what}", "", *_table(rules, ""), ""]
    return "\n".join(out)


def grammar_page(grammar: str) -> str:
    """A grammar: what it is, its invariants, and the rules that hold in it."""
    out = [f"# The {grammar} grammar", "", GRAMMAR_TEXT.get(grammar, ""), ""]
    base = BASE_GRAMMAR.get(grammar)
    if base is not None:
        out += [f"Every rule of the [{base} grammar]({base}.md) holds here too.", ""]
    out += [f"Check a stream against it with `sseconform check --grammar {grammar} FILE`.", ""]
    invariants = GRAMMAR_INVARIANTS.get(grammar, ())
    if invariants:
        out += ["## Invariants", "", *[f"- `{i}`" for i in invariants], ""]
    own = [r for r in RULES.values() if r.grammar == grammar]
    shared = [r for r in RULES.values() if r.grammar == "any"]
    out += ["## Its rules", "", *_table(own, "../rules/"), ""]
    out += ["## Rules of every grammar (wire, JSON, HTTP)", "", *_table(shared, "../rules/"), ""]
    return "\n".join(out)


def site_pages() -> dict[str, str]:
    """Every generated page: site path -> Markdown."""
    pages = {"rules/index.md": rules_index()}
    for code, rule in RULES.items():
        pages[page_path(rule)] = rule_page(code)
    for grammar in GRAMMARS:
        pages[f"grammars/{grammar}.md"] = grammar_page(grammar)
    return pages
