"""``sseconform rules`` and ``sseconform rule CODE``: the rule table and one rule's docs."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Annotated

import typer

from sseconform.cli.app import app, fail

if TYPE_CHECKING:
    from sseconform.rules.docs import RuleDoc


@app.command("rules")
def rules_cmd(
    fmt: Annotated[
        str, typer.Option("--format", "-f", help="text or json.", metavar="FORMAT")
    ] = "text",
    grammar: Annotated[
        str | None,
        typer.Option(
            "--grammar",
            "-g",
            help="Only the rules that apply to this grammar (chat, anthropic, responses).",
            metavar="GRAMMAR",
        ),
    ] = None,
) -> None:
    """List every rule: code, severity, invariant, name and summary (then gate's timing
    rules, which judge when a gateway streams rather than what)."""
    from sseconform.gate.timing_rules import RULES as TIMING
    from sseconform.rules.catalog import GRAMMARS, RULES

    if grammar is not None and grammar not in GRAMMARS:
        fail(f"unknown grammar {grammar!r}; grammars: {', '.join(GRAMMARS)}")
    table = [r for r in RULES.values() if grammar is None or r.applies_to(grammar)]
    timing = list(TIMING) if grammar is None else []

    if fmt == "json":
        import json

        rows = [
            {
                "code": r.code,
                "name": r.name,
                "severity": r.severity.value,
                "invariant": r.invariant,
                "grammar": r.grammar,
                "summary": r.summary,
            }
            for r in table
        ]
        rows += [
            {
                "code": t.key,
                "name": t.code,
                "severity": t.severity,
                "invariant": "timing",
                "grammar": "gate",
                "summary": t.summary,
            }
            for t in timing
        ]
        typer.echo(json.dumps(rows, indent=2))
        return
    if fmt != "text":
        fail(f"unknown format {fmt!r}; valid formats: text, json")
    for r in table:
        inv = r.invariant or "-"
        typer.echo(f"{r.code}  {r.severity.value:<7}  {inv:<17}  {r.name:<28}  {r.summary}")
    for t in timing:
        typer.echo(f"{t.key:<26}  {t.severity:<7}  gate's timing: {t.summary}")
    from sseconform.gate.explain import codes

    for key, text in codes().items():
        typer.echo(f"{key:<26}  {'':<7}  gate's {key.split(':')[0]}: {text.split('. ')[0]}")


@app.command("rule")
def rule_cmd(code: Annotated[str, typer.Argument(help="A rule code (T001) or name.")]) -> None:
    """Print one rule's documentation: what, why, which clients break, example, fix."""
    from sseconform.gate.explain import codes
    from sseconform.gate.timing_rules import find
    from sseconform.rules.catalog import doc as doc_of
    from sseconform.rules.catalog import get

    timing = find(code) if code.startswith("timing:") else None
    if timing is not None:
        budget = f"budget: {timing.budget}" if timing.budget else "no budget"
        head = f"{timing.key} ({timing.severity}; gate's timing, {budget})"
        _print_doc(head, timing.summary, timing.doc)
        return
    gate_codes = codes()
    if code in gate_codes:  # the gate's own findings: what they mean, in one paragraph
        source = code.split(":", 1)[0]
        typer.echo(
            "\n".join(
                [f"{code} (gate's {source} finding)", "", *textwrap.wrap(gate_codes[code], 96)]
            )
        )
        return
    try:
        rule = get(code)
    except KeyError:
        fail(f"no rule {code!r} (see `sseconform rules`)")
    inv = f"invariant: {rule.invariant}" if rule.invariant else "invariant: none"
    _print_doc(f"{rule.code} {rule.name} ({rule.severity.value}; {inv})", rule.summary,
               doc_of(rule.code))  # fmt: skip


def _print_doc(head: str, summary: str, doc: RuleDoc) -> None:
    out = [head, "", summary, ""]
    if doc.spec:
        out += ["## Specification", *textwrap.wrap(doc.spec, 96), ""]
    for title, body in (
        ("What it does", doc.what),
        ("Why it matters", doc.why),
        ("Which clients break", doc.which_clients),
    ):
        out += [f"## {title}", *textwrap.wrap(body, 96), ""]
    out += ["## Example", textwrap.indent(doc.example.rstrip("\n"), "    "), ""]
    if doc.example_from:
        out += [f"(cut from {doc.example_from})", ""]
    out += ["## Fix", *_para(doc.fix), ""]
    typer.echo("\n".join(out).rstrip("\n"))


def _para(text: str) -> list[str]:
    """Wrap prose but keep lines that look like SSE excerpts as they are."""
    out: list[str] = []
    for line in text.splitlines() or [""]:
        if line.startswith(("data:", "event:", ":", "id:", "retry:")) or not line.strip():
            out.append("    " + line if line.strip() else "")
        else:
            out.extend(textwrap.wrap(line, 96))
    return out
