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
            help="Only the rules that apply to this grammar (chat, anthropic, responses, "
            "open-responses, gemini).",
            metavar="GRAMMAR",
        ),
    ] = None,
) -> None:
    """List every rule: code, severity, invariant, name and summary; then the gate's rules
    (timing, expect, transport, upstream, diff, history), which judge a gateway against its
    upstream rather than a stream's grammar."""
    from sseconform.gate.rules import ordered
    from sseconform.rules.catalog import GRAMMARS, RULES

    if grammar is not None and grammar not in GRAMMARS:
        fail(f"unknown grammar {grammar!r}; grammars: {', '.join(GRAMMARS)}")
    table = [r for r in RULES.values() if grammar is None or r.applies_to(grammar)]
    gate = ordered() if grammar is None else []

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
                "code": r.code,
                "name": r.name,
                "severity": r.severity.value,
                "invariant": None,
                "grammar": "gate",
                "family": r.family,
                "summary": r.summary,
            }
            for r in gate
        ]
        typer.echo(json.dumps(rows, indent=2))
        return
    if fmt != "text":
        fail(f"unknown format {fmt!r}; valid formats: text, json")
    for r in table:
        inv = r.invariant or "-"
        typer.echo(f"{r.code}  {r.severity.value:<7}  {inv:<17}  {r.name:<28}  {r.summary}")
    for r in gate:
        typer.echo(f"{r.code:<26}  {r.severity.value:<7}  gate's {r.family}: {r.summary}")


@app.command("rule")
def rule_cmd(
    code: Annotated[
        str,
        typer.Argument(
            help="A rule code (T001) or name, or any key a report prints "
            "(turn2:history:refused, diff:lost:reasoning)."
        ),
    ],
) -> None:
    """Print one rule's documentation: what, why, which clients break, example, fix."""
    from sseconform.gate.rules import budget
    from sseconform.rules.catalog import GATE_RULES, get
    from sseconform.rules.catalog import doc as doc_of
    from sseconform.rules.finding import split_key

    parts = split_key(code)
    gate = GATE_RULES.get(parts.rule_id)
    if gate is not None:  # the gate's own: a gateway against its upstream
        _print_applies(code, gate.code, parts.turn, parts.detail)
        extra = f", {budget(gate)}" if budget(gate) else ""
        head = f"{gate.code} ({gate.severity.value}; gate's {gate.family} finding{extra})"
        _print_doc(head, gate.summary, doc_of(gate.code))
        return
    try:
        if ":" in parts.rule_id or parts.detail is not None:
            raise KeyError(code)  # a family no gate rule has
        rule = get(parts.rule_id)
    except KeyError:
        fail(f"no rule {code!r} (see `sseconform rules`)")
    _print_applies(code, rule.code, parts.turn, None)
    inv = f"invariant: {rule.invariant}" if rule.invariant else "invariant: none"
    _print_doc(f"{rule.code} {rule.name} ({rule.severity.value}; {inv})", rule.summary,
               doc_of(rule.code))  # fmt: skip


#: What a difference's or a request parameter's detail is, by the rule's kind.
_DETAIL = {
    "lost": "is what was lost",
    "changed": "is what changed",
    "added": "is what the gateway added",
    "extra": "is what came extra",
    "duplicated": "is what came twice",
    "relabelled": "is what was relabelled",
    "reordered": "is what came out of order",
    "missing": "is what is missing",
}


def _print_applies(key: str, rule_id: str, turn: int, detail: str | None) -> None:
    """A key copied from a report is more than its rule: a line first says which part is
    the rule and what the rest (the turn, the field) tells."""
    from sseconform.safetext import printable

    if turn == 1 and detail is None:
        return
    said: list[str] = []
    if turn != 1:
        said.append(f"found in turn {turn} of the conversation")
    if detail is not None:
        what = _DETAIL.get(rule_id.rpartition(":")[2], "is what the finding is about")
        subject = "the request parameter" if rule_id.startswith("request:") else "the detail"
        said.append(f"{subject} {detail!r} {what}")
    typer.echo(printable(f"{key.strip()} is the rule {rule_id} - {'; '.join(said)}.") + "\n")


def _print_doc(head: str, summary: str, doc: RuleDoc) -> None:
    out = [head, "", summary, ""]
    for key, body in doc.sections():
        if key == "example":
            out += ["## Example", textwrap.indent(body.rstrip("\n"), "    "), ""]
            if doc.example_from:
                out += [f"(cut from {doc.example_from})", ""]
        elif key == "fix":
            out += ["## Fix", *_para(body), ""]
        else:
            out += [f"## {_TITLES[key]}", *textwrap.wrap(body, 96), ""]
    typer.echo("\n".join(out).rstrip("\n"))


#: Each section's title in the terminal (``RuleDoc.sections`` gives the order).
_TITLES = {
    "spec": "Specification",
    "what": "What it does",
    "why": "Why it matters",
    "clients": "Which clients break",
}


def _para(text: str) -> list[str]:
    """Wrap prose but keep lines that look like SSE excerpts as they are."""
    out: list[str] = []
    for line in text.splitlines() or [""]:
        if line.startswith(("data:", "event:", ":", "id:", "retry:")) or not line.strip():
            out.append("    " + line if line.strip() else "")
        else:
            out.extend(textwrap.wrap(line, 96))
    return out
