"""Gate results as text and JSON, and the gate's subjects and test cases for the shared
writers (:mod:`sseconform.report`: JUnit, GitHub annotations, SARIF).

Pure writers: results in, text out. Messages come from streams, so they go through
:func:`printable` (no terminal escapes) and, for GitHub, the workflow-command escaping.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

from sseconform.findings import Finding
from sseconform.gate.diff import Difference
from sseconform.gate.result import VERDICTS, ScenarioResult, SuiteResult
from sseconform.gate.rules.request import Deviation
from sseconform.gate.rules.upstream import NOT_REACHED
from sseconform.providers import ENDPOINTS
from sseconform.report.github import write_annotations
from sseconform.report.jsonfmt import findings
from sseconform.report.junit import Case, CaseSuite, xml
from sseconform.report.sarif import dump, sarif
from sseconform.report.subject import Subject
from sseconform.report.text import finding_line, write_subjects
from sseconform.rules.catalog import Severity
from sseconform.safetext import printable

__all__ = [
    "FORMATS",
    "document",
    "endpoint_matrix",
    "failed_itself",
    "scorecard",
    "totals",
    "write",
    "write_diff",
]

FORMATS = ("text", "json", "junit", "github", "sarif")


def _line(f: Finding) -> str:
    return printable(finding_line(f))


MARKS = {
    "pass": "PASS",
    "known": "KNOWN",
    "fail": "FAIL",
    "unreached": "UNREACHED",
    "not-applicable": "N/A",
    "not-graded": "NOT GRADED",
}


def _scenarios(results: list[SuiteResult]) -> list[ScenarioResult]:
    return [s for r in results for s in r.scenarios]


def totals(results: list[SuiteResult]) -> str:
    """``37/49 scenarios passed`` (the gate: known deviations pass, as in every format)
    and, when there are any, the other verdicts' counts; with known deviations, how many
    passed clean (``14/14 passed`` must not read as clean when none was)."""
    scs = _scenarios(results)
    graded = [s for s in scs if s.verdict not in ("not-applicable", "not-graded")]
    ok = sum(s.passed for s in graded)
    counts = {v: sum(s.verdict == v for s in scs) for v in VERDICTS}
    clean = f"{counts['pass']} clean" if counts["pass"] else "none clean"
    parts = [
        f"{clean}, {counts['known']} only with known deviations" if counts["known"] else "",
        f"{counts['fail']} failed" if counts["fail"] else "",
        f"{counts['unreached']} upstream not reached" if counts["unreached"] else "",
    ]
    extra = ", ".join(p for p in parts if p)
    # the scenarios outside the count, after it: "0/62 passed (62 failed, 62 not applicable)"
    # read as 62 scenarios in all, of a run of 124
    others = [
        f"{counts['not-applicable']} not applicable" if counts["not-applicable"] else "",
        f"{counts['not-graded']} not graded" if counts["not-graded"] else "",
    ]
    outside = " and ".join(p for p in others if p)
    besides = f"; {outside} besides ({len(scs)} in all)" if outside else ""
    nothing = "; nothing was tested" if untested(results) is not None else ""
    died = gateway_down(results)
    down = f"; {died}" if died is not None and not nothing else ""
    counted = f"{ok}/{len(graded)} scenarios passed" + (f" ({extra})" if extra else "")
    return counted + besides + nothing + down


def gateway_down(results: list[SuiteResult]) -> str | None:
    """That the gateway stopped listening, and in which scenario; None when it did not."""
    for r in results:
        if r.down is None:
            continue
        after = sum(not s.graded for s in r.scenarios)
        if not r.down:
            return f"the gateway at {r.gateway} refused every connection: is it running there?"
        return (
            f"the gateway went down during {r.down} (it stopped accepting connections); "
            f"the {after} scenario(s) after it were not graded"
        )
    return None


def untested(results: list[SuiteResult]) -> str | None:
    """Why the run tested nothing, or None. A release gate must not be green when nothing
    ran: every scenario not applicable (a profile for another endpoint), or none reaching
    the upstream (a gateway not routed to it)."""
    scs = _scenarios(results)
    graded = [s for s in scs if s.verdict not in ("not-applicable", "not-graded")]
    if not scs:
        return "the suites hold no scenario"
    if any(r.down == "" for r in results) and not graded:
        return gateway_down(results)
    if not graded:
        endpoints = sorted({s.endpoint for s in scs})
        notes = sorted({s.note for s in scs if s.note})
        why = f": {notes[0]}" if len(notes) == 1 else ""
        return (
            f"none of the {len(scs)} scenarios applies to the gateway on "
            f"{', '.join(endpoints)}{why}"
        )
    if all(s.verdict == "unreached" for s in graded):
        itself = failed_itself(results)
        if itself is not None:
            return itself
        return (
            f"the upstream got no request of any of the {len(graded)} scenarios: is the "
            "gateway routed to the replay upstream (its profile's config, --upstream-port)?"
        )
    return None


#: statuses a gateway answers on its own for a reason other than its routing (404 may be a
#: path it does not serve)
_NOT_ROUTING = frozenset(range(400, 600)) - {404}


def failed_itself(results: list[SuiteResult]) -> str | None:
    """When the gateway answered every graded request with an HTTP error of its own, without
    calling the upstream: that status and the first bytes of its answer, and where to look
    (a gateway that fails everything is started wrong, not unrouted); else None."""
    graded = [s for s in _scenarios(results) if s.verdict != "not-applicable"]
    if not graded or any(
        s.verdict != "unreached" or s.upstream_requests or s.status not in _NOT_ROUTING
        for s in graded
    ):
        return None
    statuses = sorted({s.status for s in graded if s.status is not None})
    said = next(
        (f.excerpt for s in graded for f in s.findings if f.rule_id == NOT_REACHED.code),
        None,
    )
    body = f" ({printable(said[:100])!r})" if said else ""
    where = (
        "is gate's key the gateway's? give it with --key or $SSECONFORM_GATEWAY_KEY"
        if set(statuses) <= {401, 403}
        else "it fails before routing anything: does it want a key (LiteLLM started with a "
        "master key answers 500 to a request without one: give it with --key), was it started "
        "right? its log says why"
    )
    return (
        f"the gateway answered all {len(graded)} requests with HTTP "
        f"{' or '.join(map(str, statuses))}{body} without calling the upstream: {where}"
    )


def scorecard(results: SuiteResult | list[SuiteResult]) -> str:
    """One line per scenario, then the totals: what a closing note or a CI log shows."""
    results = [results] if isinstance(results, SuiteResult) else results
    scs = _scenarios(results)
    # columns as wide as their longest cell (gemini:generateContent/anthropic/text is 37)
    named = max([34, *(len(printable(s.name)) for s in scs)])
    expected = max([16, *(len(printable(s.expect)) + 1 for s in scs)])
    lines = []
    for s in scs:
        codes = sorted({f.key for f in s.findings if f.severity == Severity.ERROR and not f.known})
        known = sorted({f.key for f in s.findings if f.severity == Severity.ERROR and f.known})
        extra = f"  [{', '.join(codes)}]" if codes else ""
        extra += f"  known [{', '.join(known)}]" if known else ""
        note = f"  ({printable(s.note)})" if s.note else ""
        name, expect = printable(s.name), printable(s.expect)
        lines.append(
            f"{MARKS[s.verdict]:<9} {name:<{named}} {expect:<{expected}}{printable(extra)}{note}"
        )
    fixed = [(s.name, k) for s in scs for k in s.fixed]
    for name, k in fixed:
        lines.append(
            f"FIXED     {printable(name):<{named}} {printable(k)} no longer happens: drop it "
            "from the baseline"
        )
    lines.append(totals(results))
    return "\n".join(lines)


#: A cell of the endpoint matrix: the verdict, ``+w`` when it passed with warnings.
_CELL = {"pass": "pass", "known": "known", "fail": "FAIL", "unreached": "unreached"}
#: Endpoints in report order.
ENDPOINT_ORDER = tuple(ENDPOINTS)


def endpoint_matrix(scenarios: list[dict[str, Any]]) -> str:
    """Scenario by endpoint: one row per scenario (its name without the endpoint's prefix), a
    column per endpoint the run covered, then each column's totals and, under the table, the
    error keys behind every cell that is not a plain pass. Takes the JSON report's scenario
    dicts, so a saved report can be tabled too."""
    endpoints = sorted(
        {s["endpoint"] for s in scenarios},
        key=lambda e: (ENDPOINT_ORDER.index(e) if e in ENDPOINT_ORDER else 9, e),
    )
    rows: dict[str, dict[str, dict[str, Any]]] = {}
    for s in scenarios:
        base = printable(s["name"].removeprefix(f"{s['endpoint']}/"))
        rows.setdefault(base, {})[s["endpoint"]] = s
    width = max([len("scenario"), *(len(n) for n in rows)]) + 2
    col = max(12, *(len(e) + 2 for e in endpoints))
    lines = ["scenario".ljust(width) + "".join(e.ljust(col) for e in endpoints)]
    notes = []
    for base in sorted(rows):
        cells = []
        for e in endpoints:
            cell = rows[base].get(e)
            if cell is None:
                cells.append("-")
                continue
            s = cell
            if s["verdict"] in ("not-applicable", "not-graded"):
                cells.append("n/a" if s["verdict"] == "not-applicable" else "not graded")
                continue
            errors = sorted({f["key"] for f in s["findings"] if f["severity"] == "error"})
            warned = any(f["severity"] == "warning" for f in s["findings"])
            cells.append(_CELL[s["verdict"]] + ("+w" if warned and s["verdict"] == "pass" else ""))
            if errors:
                notes.append(f"  {e} {base}: {' '.join(errors)}")
        lines.append(base.ljust(width) + "".join(c.ljust(col) for c in cells))
    sums = []
    for e in endpoints:
        graded = [
            r[e]
            for r in rows.values()
            if e in r and r[e]["verdict"] not in ("not-applicable", "not-graded")
        ]
        sums.append(f"{sum(s['verdict'] == 'pass' for s in graded)}/{len(graded)} pass")
    lines.append("".ljust(width) + "".join(c.ljust(col) for c in sums))
    known = [
        str(sum(r[e]["verdict"] == "known" for r in rows.values() if e in r)) for e in endpoints
    ]
    lines.append("known only".ljust(width) + "".join(c.ljust(col) for c in known))
    na = [
        str(sum(r[e]["verdict"] == "not-applicable" for r in rows.values() if e in r))
        for e in endpoints
    ]
    lines.append("not applicable".ljust(width) + "".join(c.ljust(col) for c in na))
    if notes:
        lines.append("error keys (known ones included):")
        lines.extend(notes)
    lines.append("pass+w: passed with warnings; n/a: the gateway's profile cannot route it")
    return "\n".join(printable(line.rstrip()) for line in lines)


def write(results: SuiteResult | list[SuiteResult], out: TextIO, fmt: str) -> None:
    """One document for any number of suites, in every format."""
    results = [results] if isinstance(results, SuiteResult) else results
    if fmt == "json":
        json.dump(document(results), out, indent=2)
        out.write("\n")
    elif fmt == "junit":
        _junit(results, out)
    elif fmt == "github":
        write_annotations(_subjects(results), out, f"sseconform gate: {totals(results)}")
    elif fmt == "sarif":
        dump(sarif_document(results), out)
    else:
        _text(results, out)


def document(results: list[SuiteResult]) -> dict[str, Any]:
    """The JSON report: every scenario of every suite in one list, each naming its suite."""
    scs = _scenarios(results)
    return {
        "gateway": results[0].gateway if results else None,
        "profile": next((r.profile for r in results if r.profile), None),
        "passed": all(r.passed for r in results) and untested(results) is None,
        "untested": untested(results),
        "gateway_down": gateway_down(results),
        "summary": {
            "scenarios": len(scs),
            **{v: sum(s.verdict == v for s in scs) for v in VERDICTS},
        },
        "suites": [
            {
                "suite": r.suite,
                "upstream": r.upstream,
                "passed": r.passed,
                "scenarios": len(r.scenarios),
            }
            for r in results
        ],
        "scenarios": [s.to_dict() for s in scs],
    }


def _text(results: list[SuiteResult], out: TextIO) -> None:
    """Each suite's scenarios, each under its line with its findings (as ``check`` prints
    them); then the scorecard and, over several endpoints, the matrix."""
    helped: set[str] = set()
    for result in results:
        via = f" (profile {result.profile})" if result.profile else ""
        out.write(
            printable(f"sseconform gate: {result.suite} through {result.gateway}{via}") + "\n"
        )
        write_subjects(_subjects([result]), out, helped)
        out.write("\n")
    out.write(scorecard(results) + "\n")
    if len({s.endpoint for s in _scenarios(results)}) > 1:
        out.write("\n" + endpoint_matrix([s.to_dict() for s in _scenarios(results)]) + "\n")


def _scenario_head(s: ScenarioResult) -> str:
    mark = MARKS[s.verdict]
    if s.verdict in ("not-applicable", "not-graded"):
        return printable(f"{mark} {s.name} ({s.note})")
    status = f"HTTP {s.status}" if s.status is not None else "no response"
    note = f", {s.note}" if s.note else ""
    recorded = f" -> {s.recording}" if s.recording else ""  # the WebSocket probe records none
    return printable(
        f"{mark} {s.name} (expect {s.expect}; {status}, {s.upstream_requests} upstream "
        f"request(s), {s.seconds:.2f} s{note}){recorded}"
    )


def _subjects(results: list[SuiteResult]) -> list[Subject]:
    """Each scenario as a report subject: its findings are in its gateway recording, on lines
    of the recorded body, and share that file with the scenario's others (so each names it)."""
    return [
        Subject(
            s.name,
            s.findings,
            artifact=s.recording or None,
            lines=False,
            fixed=s.fixed,
            label=s.name,
            heading=_scenario_head(s),
            properties={
                "scenario": s.name,
                "suite": s.suite,
                "endpoint": s.endpoint,
                "verdict": s.verdict,
            },
        )
        for s in _scenarios(results)
    ]


def sarif_document(results: list[SuiteResult]) -> dict[str, Any]:
    """The SARIF document of one gate run: every finding at its scenario's recording,
    baseline ones ``unchanged``."""
    return sarif(
        _subjects(results),
        baseline=True,
        successful=all(r.passed for r in results),
        properties={"gateway": results[0].gateway if results else None},
    )


def _case(result: SuiteResult, s: ScenarioResult) -> Case:
    new = [f for f in s.findings if f.severity == Severity.ERROR and not f.known]
    lines = [_scenario_head(s)]
    lines += [f"known: {_line(f)}" for f in s.findings if f.known]
    lines += [f"baseline entry no longer seen: {k}" for k in s.fixed]
    kw: dict[str, Any] = {"out": "\n".join(lines), "time": s.seconds}
    if s.verdict in ("not-applicable", "not-graded"):
        kw.update(outcome="skipped", message=s.note)
    elif s.verdict in ("fail", "unreached"):
        kw.update(
            outcome="error" if s.verdict == "unreached" else "failure",
            message=f"{len(new)} finding(s): {', '.join(sorted({f.key for f in new}))}",
            type=new[0].rule_id if new else "",
            text="\n".join(_line(f) for f in s.findings),
        )
    return Case(f"sseconform.gate.{result.suite}", s.name, **kw)


def _junit(results: list[SuiteResult], out: TextIO) -> None:
    suites = [
        CaseSuite(f"sseconform gate {r.suite}", [_case(r, s) for s in r.scenarios]) for r in results
    ]
    xml(suites, out, name="sseconform gate")


def write_diff(
    diffs: list[Difference],
    out: TextIO,
    fmt: str,
    a: str,
    b: str,
    timing: dict[str, float | None] | None = None,
    timed: list[Finding] | None = None,
) -> None:
    """``sseconform diff``'s output: each difference, located in both streams; with
    ``--timing``, what the gateway added to when the content arrived, and its findings."""
    if fmt == "json":
        doc: dict[str, object] = {
            "upstream": a, "gateway": b, "differences": [d.to_dict() for d in diffs]
        }  # fmt: skip
        if timing is not None:
            doc["timing"] = timing
            doc["timing_findings"] = findings(timed or [])
        json.dump(doc, out)
        out.write("\n")
        return
    for d in diffs:
        up = f"upstream {d.upstream}" if d.upstream is not None else "upstream -"
        gw = f"gateway {d.gateway}" if d.gateway is not None else "gateway -"
        kind = d.kind if d.severity == Severity.ERROR else f"{d.kind} ({d.severity})"
        out.write(printable(f"{d.field}: {kind}: {d.message}") + "\n")
        out.write(f"    {up}; {gw}\n")
    if diffs:
        out.write(f"{len(diffs)} difference(s) between {printable(a)} and {printable(b)}\n")
    else:
        out.write(f"same content: {printable(a)} and {printable(b)}\n")
    if timing is None:
        return
    shown = ", ".join(f"{k} {'-' if v is None else f'{v:.3f}'}" for k, v in timing.items())
    out.write(f"timing (s): {shown}\n")
    for f in timed or []:
        out.write(printable(finding_line(f)) + "\n")


def write_request_diff(
    found: list[Deviation], out: TextIO, fmt: str, upstream: str, client: str
) -> None:
    """``sseconform diff --requests``'s output: each parameter the upstream's request lost,
    changed or added of the client's, with its severity."""
    if fmt == "json":
        rows = [
            {"key": f"{d.rule.code}:{d.param}", "severity": str(d.severity), "message": d.message}
            for d in found
        ]
        out.write(json.dumps({"upstream": upstream, "client": client, "requests": rows}) + "\n")
        return
    if not found:
        out.write(f"{upstream}: asks what {client} asked (every parameter both can say)\n")
        return
    for d in found:
        out.write(f"{d.severity:<7}  {d.rule.code}:{d.param}  {printable(d.message)}\n")
    errors = sum(d.severity == Severity.ERROR for d in found)
    out.write(f"{len(found)} difference(s), {errors} error(s)\n")
