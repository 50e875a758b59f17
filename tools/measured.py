"""What the matrix says about a rule: the "Which clients break" text, and the severity it implies.

A rule's measured cases are the ``fail/<CODE>-*`` cases of every grammar's matrix file. Per
client, each case's outcome becomes a phrase (tolerates it, raises ..., returns wrong content
..., falls back to non-streaming ...); cases with the same phrase are merged.

    python -m tools.measured CODE [CODE ...]
    python -m tools.measured --write   # sseconform/rules/measured.json

``--write`` regenerates the file the rules' docs read their measured "Which clients break"
text from (and the severity the matrix implies); ``tests/interop/test_matrix.py`` fails when
the file, the matrix and the rules' severities disagree.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from sseconform.rules.catalog import BASE_GRAMMAR, RULES
from sseconform.rules.docs import measured_text

#: The client matrix's committed outcomes: the JSON files this reads.
HERE = Path(__file__).resolve().parent.parent / "tests" / "interop" / "matrix"
#: A client's outcome on a case (``tests/interop/matrix/outcome.py`` says what each means).
OK, WRONG, ERROR = "ok", "wrong-content", "error"
SOURCE = "tests/interop/matrix"


def matrices() -> dict[str, dict[str, Any]]:
    """Every committed matrix file, by grammar."""
    return {p.stem: json.loads(p.read_text()) for p in sorted(HERE.glob("*.json"))}


def measured(
    code: str, data: dict[str, dict[str, Any]] | None = None
) -> list[tuple[str, str, dict[str, str]]]:
    """(client label, case name, {outcome, detail}) for each client and fail case of ``code``.

    A failure a client also shows on a valid stream (a pass case, word for word: an agent that
    re-asks, a helper that wants one terminal event) says nothing about the rule: its result
    gets ``as_on``, the pass case, and does not make the rule an error."""
    out = []
    prefix = f"fail/{code}-"
    for matrix in (data if data is not None else matrices()).values():
        for name, entry in sorted(matrix.get("clients", {}).items()):
            cases = entry.get("cases", {})
            on_valid = {
                r["detail"]: case
                for case, r in sorted(cases.items(), reverse=True)
                if case.startswith("pass/") and r["outcome"] != OK
            }
            for case, result in sorted(cases.items()):
                if case.startswith(prefix):
                    if result["outcome"] != OK and result["detail"] in on_valid:
                        result = {**result, "as_on": on_valid[result["detail"]]}
                    out.append(
                        (label(name, entry["client"]["version"]), case[len(prefix) :], result)
                    )
    return out


def label(name: str, version: str) -> str:
    """``openai-python 3.54.0``; Node packages as ``ai@7.0.173 + @ai-sdk/openai@4.0.118``."""
    if "@" in version:
        return version.replace(" ", " + ")
    return f"{name} {version}"


def _notes(detail: str) -> list[str]:
    return re.findall(r"\[([^\]]+)\]", detail)


def phrase(result: dict[str, str]) -> str:
    """One case's outcome for one client, in words."""
    detail = result["detail"]
    fallback = next((n for n in _notes(detail) if n.startswith("fell back to non-streaming")), None)
    core = re.sub(r"\s*\[[^\]]+\]", "", detail).strip()
    if fallback is not None:
        reason = fallback.split(": ", 1)[-1]
        then = _outcome_words(result["outcome"], core)
        said = f"falls back to non-streaming ({reason}), then {then}"
    else:
        said = _outcome_words(result["outcome"], core)
    if "as_on" in result:
        said += f", as it does on the valid stream {result['as_on']}"
    return said


def _outcome_words(outcome: str, core: str, limit: int = 140) -> str:
    core = core if len(core) <= limit else core[: limit - 1] + "…"
    if outcome == OK:
        return "raises the stream's error" if core.startswith("raised ") else "tolerates it"
    if outcome == ERROR:
        return f"raises {core}"
    return f"returns wrong content ({core})"


def _by_client(code: str, data: dict[str, dict[str, Any]] | None) -> list[tuple[str, str, bool]]:
    """(client, what it does on the rule's cases, whether that differs by case: each case is
    then named) for each measured client."""
    by_client: dict[str, dict[str, list[str]]] = {}
    for client, case, result in measured(code, data):
        by_client.setdefault(client, {}).setdefault(phrase(result), []).append(case)
    out = []
    for client, phrases in by_client.items():
        if len(phrases) == 1:
            out.append((client, next(iter(phrases)), False))
        else:
            said = "; ".join(f"{p} ({', '.join(cases)})" for p, cases in phrases.items())
            out.append((client, said, True))
    return out


def clients_rows(code: str, data: dict[str, dict[str, Any]] | None = None) -> list[list[Any]]:
    """A row per measured client, [client, what it does on the rule's cases, whether that
    names the cases], for the site's table and the prose made of it; [] when nothing was
    measured."""
    return [list(row) for row in _by_client(code, data)]


def clients_text(code: str, data: dict[str, dict[str, Any]] | None = None) -> str | None:
    """The "Which clients break" text for a rule, or None when no case of it was measured."""
    rows = clients_rows(code, data)
    return measured_text(rows, SOURCE, "") if rows else None


def severity(code: str, data: dict[str, dict[str, Any]] | None = None) -> str | None:
    """``error`` if any measured client raised or got wrong content on a case of the rule,
    else ``warning``; None when no case of it was measured."""
    rows = measured(code, data)
    if not rows:
        return None
    broken = any(r["outcome"] in (ERROR, WRONG) and "as_on" not in r for _, _, r in rows)
    return "error" if broken else "warning"


#: Rules whose cases break clients although the gateway did nothing wrong: the upstream itself
#: sent what the rule reports, and a faithful gateway must pass it on. They stay below an error
#: (warnings, or infos for what the grammar allows: a gate must not fail a gateway for its
#: upstream), and their docs say why.
UPSTREAM_CAUSED = {
    "F010": (
        "It stays a warning because the model ran out of tokens, not the gateway: a gateway "
        "that keeps `length` passes the truncation on faithfully."
    ),
    "A036": (
        "It stays a warning because the model ran out of tokens, not the gateway: Anthropic's "
        "own streams cut a call this way, and a gateway that keeps `max_tokens` passes it on "
        "faithfully."
    ),
    "S072": (
        "It stays a warning because the model ran out of tokens, not the gateway: a gateway "
        "that keeps `response.incomplete` with `max_output_tokens` passes the cut on faithfully."
    ),
    "A008": (
        "It stays a warning because Anthropic's own streams leave a tool_use block cut by "
        "max_tokens open (a live capture in the real-stream corpus): a gateway that passes this "
        "on is faithful."
    ),
    **dict.fromkeys(
        ("A010", "A011", "A025"),
        "It stays a warning because Anthropic documents that new event, block and delta types "
        "appear and that clients must skip what they do not know: a gateway that passes a new "
        "type on is faithful, and a client that fails on it fails on Anthropic's own stream.",
    ),
    "S046": (
        "It stays a warning because a gateway can only pass on the usage its upstream reports: "
        "a chat upstream asked without `stream_options.include_usage` sends none, and counts "
        "made up in its place would be worse than none."
    ),
    "S013": (
        "It stays an info because OpenAI itself sends a resumed stream, to a client that asked "
        "for it with `starting_after`: the clients measured here read it through their create "
        "path, which no resuming client does."
    ),
}

#: Grammars that are a specification's profile: their rules' severities are the
#: specification's (a MUST is an error, what it only describes a warning), whatever the clients
#: do; the measured text is kept, and says so.
SPEC_GRAMMARS = frozenset(BASE_GRAMMAR)
#: The words for a specification rule's severity, by its severity value.
SPEC_SEVERITY = {
    "error": "a MUST: an error",
    "warning": "descriptive, not a MUST: a warning",
    "info": "descriptive, not a MUST: an info",
}


def generated(data: dict[str, dict[str, Any]] | None = None) -> dict[str, dict[str, Any]]:
    """code -> {severity, rows, from, note} for every rule with a measured case:
    measured.json's content (the site's table; the prose ``sseconform rule`` prints is made
    of them: ``rules.docs.measured_text``).

    ``severity`` is what the matrix implies (``UPSTREAM_CAUSED`` rules stay warnings), but for
    the rules of a specification's grammar (``SPEC_GRAMMARS``): theirs is the rule's own."""
    data = data if data is not None else matrices()
    codes = sorted(
        {
            case.split("/", 1)[1].split("-", 1)[0]
            for matrix in data.values()
            for entry in matrix.get("clients", {}).values()
            for case in entry.get("cases", {})
            if case.startswith("fail/")
        }
    )
    out = {}
    for code in codes:
        text, sev = clients_text(code, data), severity(code, data)
        if text is None or sev is None:
            continue
        rule = RULES.get(code)
        note = ""
        if rule is not None and rule.grammar in SPEC_GRAMMARS:
            sev, said = rule.severity.value, SPEC_SEVERITY[rule.severity.value]
            note = f"Its severity is the specification's ({said}), not the clients'."
        elif code in UPSTREAM_CAUSED:
            sev, note = "warning", UPSTREAM_CAUSED[code]
        elif sev == "warning":
            note = "No measured client breaks or reads wrong content, so it is not an error."
        out[code] = {
            "severity": sev,
            "rows": clients_rows(code, data),
            "from": SOURCE,
            "note": note,
        }
    return out


def serialised(table: dict[str, dict[str, Any]]) -> str:
    """measured.json as --write writes it."""
    return json.dumps(table, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    codes = list(argv if argv is not None else sys.argv[1:])
    if codes == ["--write"]:
        from sseconform.rules.docs import MEASURED

        MEASURED.write_text(serialised(generated()), encoding="utf-8")
        print(f"wrote {MEASURED}")
        return 0
    if not codes:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    for code in codes:
        text = clients_text(code)
        print(f"{code}: severity {severity(code) or 'not measured'}")
        print(f"  {text or 'no measured case'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
