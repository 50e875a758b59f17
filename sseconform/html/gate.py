"""``gate --format html``: one page for any number of suites (results in, HTML out).

A summary matrix per endpoint (scenario by upstream dialect, each cell the verdict, linking
to its scenario), new failures listed apart from known (baseline) ones, then per scenario:
its findings with their rule's explanation and the gateway's event bytes, both streams'
content side by side with the first difference marked, and a timeline of when each event
arrived on both sides. The timeline is inline SVG written here: no charting library to
inline, readable without script, one element per event (which the tests count).
"""

from __future__ import annotations

import itertools
import json
from typing import Any

from sseconform.findings import Finding
from sseconform.gate import rules as _registered  # noqa: F401  the gate's rules, whose docs a page shows
from sseconform.gate.report import ENDPOINT_ORDER, MARKS, totals
from sseconform.gate.result import ScenarioResult, SuiteResult
from sseconform.html.page import anchors, attr, esc, page, rule_link, rules_section
from sseconform.rules.catalog import Severity
from sseconform.version import __version__

__all__ = ["render"]

_VERDICT_WORD = {
    "pass": "pass",
    "known": "known",
    "fail": "FAIL",
    "unreached": "unreached",
    "not-applicable": "n/a",
    "not-graded": "not graded",
}


def render(results: list[SuiteResult]) -> str:
    """The page for a gate run (scenarios carry evidence when run with ``evidence=True``)."""
    scenarios = [s for r in results for s in r.scenarios]
    gateway = results[0].gateway if results else ""
    profile = next((r.profile for r in results if r.profile), None)
    head = [
        f"<header><h1>sseconform gate: {esc(gateway)}</h1>",
        f'<p class="muted">profile {esc(profile or "none")}; suites '
        f"{esc(', '.join(r.suite for r in results))}; sseconform {esc(__version__)}</p>",
        f'<p id="totals"><strong>{esc(totals(results))}</strong></p></header>',
    ]
    ids = _ids(scenarios)
    body = [*head, _matrices(scenarios, ids), _lists(scenarios, ids), _filters()]
    # the cards a reader came for first: failures, then known deviations, passes, n/a last
    ordered = sorted(scenarios, key=lambda s: _CARD_ORDER.index(s.verdict))
    body += [_scenario(s, ids[id(s)]) for s in ordered]
    body.append(rules_section(f.rule_id for s in ordered for f in s.findings))
    return page(f"sseconform gate: {gateway}", "\n".join(body))


_CARD_ORDER = ("fail", "unreached", "known", "pass", "not-applicable", "not-graded")
#: Characters of a failure's first message shown in the list of new failures.
_SAID = 200


def _ids(scenarios: list[ScenarioResult]) -> dict[int, str]:
    return {id(s): a for s, a in zip(scenarios, anchors([s.name for s in scenarios]), strict=True)}


def _base(s: ScenarioResult) -> str:
    return s.name.removeprefix(f"{s.endpoint}/")


def _split(name: str) -> tuple[str, str]:
    dialect, _, case = name.partition("/")
    return (dialect, case) if case else ("", dialect)


def _matrices(scenarios: list[ScenarioResult], ids: dict[int, str]) -> str:
    """One table per endpoint: a row per case, a column per upstream dialect."""
    out = ['<section id="matrix"><h2>Summary</h2>']
    endpoints = sorted(
        {s.endpoint for s in scenarios},
        key=lambda e: (ENDPOINT_ORDER.index(e) if e in ENDPOINT_ORDER else 9, e),
    )
    for endpoint in endpoints:
        cells: dict[str, dict[str, ScenarioResult]] = {}
        dialects: list[str] = []
        for s in scenarios:
            if s.endpoint != endpoint:
                continue
            dialect, case = _split(_base(s))
            if dialect not in dialects:
                dialects.append(dialect)
            cells.setdefault(case, {})[dialect] = s
        out.append(f'<h3>endpoint {esc(endpoint)}</h3><div class="wrap">')
        out.append(
            f'<table class="matrix sortable" data-endpoint={attr(endpoint)}><thead><tr>'
            "<th>scenario</th>" + "".join(f"<th>{esc(d or '-')}</th>" for d in dialects)
        )
        out.append("</tr></thead><tbody>")
        for case in sorted(cells):
            row = [f"<tr><td>{esc(case)}</td>"]
            for d in dialects:
                cell = cells[case].get(d)
                if cell is None:
                    row.append('<td class="v-empty"></td>')
                    continue
                s = cell
                v = s.verdict
                word = _VERDICT_WORD[v]
                if v == "pass" and any(f.severity == Severity.WARNING for f in s.findings):
                    word += "+w"
                row.append(
                    f'<td class="v v-{v}" data-verdict={attr(v)} data-scenario={attr(s.name)}>'
                    f'<a href="#{ids[id(s)]}" title={attr(s.name)}>{esc(word)}</a></td>'
                )
            out.append("".join(row) + "</tr>")
        out.append("</tbody></table></div>")
    out.append(
        '<p class="muted">pass+w: passed with warnings; known: only deviations the '
        "baseline accepts; unreached: the upstream never got the request, nothing was "
        "tested; n/a: the gateway's profile cannot route it.</p></section>"
    )
    return "\n".join(out)


def _lists(scenarios: list[ScenarioResult], ids: dict[int, str]) -> str:
    """New failures, and apart from them the deviations the baseline already knows."""
    failing = [s for s in scenarios if s.verdict in ("fail", "unreached")]
    known = [s for s in scenarios if any(f.known for f in s.findings)]
    fixed = [(s, k) for s in scenarios for k in s.fixed]
    out = ['<section id="failures"><h2>New failures</h2>']
    if failing:
        out.append("<ul>")
        for s in failing:
            new = [f for f in s.findings if f.severity == Severity.ERROR and not f.known]
            keys = sorted({f.key for f in new})
            said = new[0].message if new else ""
            said = said if len(said) <= _SAID else said[: _SAID - 1] + "\u2026"
            out.append(
                f'<li><a href="#{ids[id(s)]}">{esc(s.name)}</a> '
                f"<code>{esc(', '.join(keys))}</code>"
                + (f'<br><span class="said">{esc(said)}</span>' if said else "")
                + "</li>"
            )
        out.append("</ul>")
    else:
        out.append("<p>None.</p>")
    out.append('</section><section id="known"><h2>Known deviations (baseline)</h2>')
    if known:
        out.append("<ul>")
        for s in known:
            keys = sorted({f.key for f in s.findings if f.known})
            out.append(
                f'<li><a href="#{ids[id(s)]}">{esc(s.name)}</a> '
                f"<code>{esc(', '.join(keys))}</code></li>"
            )
        out.append("</ul>")
    else:
        out.append("<p>None.</p>")
    for s, k in fixed:
        out.append(
            f"<p>Fixed: {esc(s.name)} no longer shows <code>{esc(k)}</code>: drop it from "
            "the baseline.</p>"
        )
    out.append("</section>")
    return "\n".join(out)


def _filters() -> str:
    buttons = "".join(
        f'<button type="button" data-show="{v}" aria-pressed="{str(v == "all").lower()}">'
        f"{w}</button>"
        for v, w in (
            ("all", "all"),
            ("fail", "failed"),
            ("unreached", "unreached"),
            ("known", "known"),
            ("pass", "passed"),
        )
    )
    return f'<h2>Scenarios</h2><div id="filters" class="filters hidden">show: {buttons}</div>'


def _where(f: Finding) -> str:
    if f.frame is None:
        return ""
    return f"frame {f.frame}, byte {f.offset}" if f.offset is not None else f"frame {f.frame}"


def _finding(f: Finding, events: dict[str, str]) -> str:
    sev = "known" if f.known else f"sev-{f.severity}"
    where = _where(f)
    label = "known" if f.known else f.severity
    out = [
        f'<li class="finding {sev}" data-key={attr(f.key)}>'
        f'<span class="code">{esc(f.key)}</span> <span class="muted">{esc(label)}'
        f"{esc('; ' + where) if where else ''}</span><br>{esc(f.message)}"
    ]
    raw = events.get(str(f.offset)) if f.offset is not None else None
    if raw is None and f.excerpt:
        raw = f.excerpt
    if raw:
        out.append(f'<div class="label">the gateway\'s event at byte {esc(f.offset)}</div>')
        out.append(f'<pre class="bytes">{esc(raw)}</pre>')
    out.append(rule_link(f.rule_id))
    out.append("</li>")
    return "".join(out)


def _scenario(s: ScenarioResult, anchor: str) -> str:
    v = s.verdict
    ev = s.evidence.to_dict() if s.evidence is not None else None
    status = f"HTTP {s.status}" if s.status is not None else "no response"
    out = [
        f'<section class="scenario s-{v}" id="{anchor}" data-verdict={attr(v)}>',
        f'<h2><span class="badge v-{v}">{esc(MARKS[v])}</span> {esc(s.name)}</h2>',
    ]
    if v in ("not-applicable", "not-graded"):
        out.append(f'<p class="muted">{esc(s.note)}</p></section>')
        return "".join(out)
    out.append(
        f'<p class="muted">expect {esc(s.expect)}; {esc(status)}; {s.upstream_requests} '
        f"upstream request(s); {s.seconds:.2f} s"
        + (f"; {esc(s.note)}" if s.note else "")
        + (f"; recording {esc(s.recording)}" if s.recording else "")
        + "</p>"
    )
    later = [e.to_dict() for e in s.later_evidence]
    # each turn's event bytes: a finding's offset is in its own turn's recording
    events = {e["turn"]: e["events"] for e in ([ev] if ev else []) + later}
    new = [f for f in s.findings if not f.known]
    known = [f for f in s.findings if f.known]
    if new:
        out.append('<h3>Findings</h3><ul class="findings">')
        out += [_finding(f, events.get(f.turn, {})) for f in new]
        out.append("</ul>")
    if known:
        out.append('<details class="known-findings"><summary>Known deviations (baseline): ')
        out.append(f'{len(known)}</summary><ul class="findings">')
        out += [_finding(f, events.get(f.turn, {})) for f in known]
        out.append("</ul></details>")
    differences = [f for f in s.findings if _is_request_difference(f)]
    if ev is not None and later:
        out.append(_turns([ev, *later], differences))
        out.append(_timeline(ev))
    elif ev is not None:
        out.append(_content(ev, v))
        if ev.get("requests"):
            out.append(_requests_pair(ev, differences))
        out.append(_timeline(ev))
    if s.upstream_log:
        out.append('<details><summary>upstream log</summary><pre class="log">')
        out.append(esc("\n".join(s.upstream_log)) + "</pre></details>")
    out.append("</section>")
    return "\n".join(out)


def _field(value: dict[str, Any], mark: int | None) -> str:
    """One field's text, with the first difference marked at char ``mark``."""
    text = str(value["value"])
    cut = f'<span class="muted"> [{value["cut"]} more chars]</span>' if value["cut"] else ""
    if mark is None:
        return f"<pre>{esc(text)}{cut}</pre>"
    here = text[mark : mark + 1]
    return (
        f'<pre>{esc(text[:mark])}<mark class="first-diff" data-char="{mark}">'
        f"{esc(here) if here else '&#x2038;'}</mark>"
        f'<span class="after-diff">{esc(text[mark + 1 :])}</span>{cut}</pre>'
    )


def _one_side(
    choices: list[dict[str, Any]] | None, extra: dict[str, Any], first: dict[str, Any] | None
) -> str:
    if choices is None:
        body = extra.get("body")
        if body:
            return f'<div class="label">HTTP error body</div><pre>{esc(body)}</pre>'
        return '<p class="muted">no stream</p>'
    out = []
    for ch in choices:
        idx = ch["index"]
        pre = f"choice {idx}: " if len(choices) > 1 else ""

        def mark_for(name: str, call: int | None = None, idx: int = idx) -> int | None:
            if first is None or "char" not in first:
                return None
            if first["choice"] != idx or first["name"] != name or first["call"] != call:
                return None
            return int(first["char"])

        for name in ("reasoning", "text", "refusal"):
            if ch[name]["value"] or mark_for(name) is not None:
                out.append(f'<div class="label">{esc(pre + name)}</div>')
                out.append(
                    f'<div class="field" data-field={attr(name)}>'
                    f"{_field(ch[name], mark_for(name))}</div>"
                )
        for i, call in enumerate(ch["calls"]):
            out.append(
                f'<div class="label">{esc(pre)}tool call {i}: <code>{esc(call["name"])}'
                f'</code> <span class="muted">{esc(call["id"] or "no id")}</span></div>'
            )
            out.append(
                f'<div class="field" data-field="call-{i}">'
                f"{_field(call['arguments'], mark_for('arguments', i))}</div>"
            )
        finish, field = ch["finish"], extra.get("finish_field", "finish_reason")
        out.append(f'<div class="label">{esc(field)}: <code>{esc(finish)}</code></div>')
    if "usage" in extra:
        out.append(f'<div class="label">usage: <code>{esc(_short(extra["usage"]))}</code></div>')
    if "error" in extra:
        out.append(f'<div class="label">error: <code>{esc(_short(extra["error"]))}</code></div>')
    return "".join(out)


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= 400 else text[:399] + "\u2026"


def _first(first: dict[str, Any] | None) -> str:
    if first is None:
        return '<p class="first muted">Same meaning on both sides.</p>'
    where = f" at char {first['char']}" if "char" in first else ""
    return (
        f'<p class="first">First difference: <code>{esc(first["field"])}</code> '
        f"({esc(first['kind'])}){esc(where)}</p>"
    )


def _up(ev: dict[str, Any]) -> str:
    return (
        '<div class="side up"><h4>upstream sent</h4>'
        f"{_one_side(ev['upstream'], ev['upstream_extra'], ev['first'])}</div>"
    )


def _gw(ev: dict[str, Any]) -> str:
    return (
        '<div class="side gw"><h4>the gateway\'s client got</h4>'
        f"{_one_side(ev['gateway'], ev['gateway_extra'], ev['first'])}</div>"
    )


def _content(ev: dict[str, Any], verdict: str) -> str:
    first = _first(ev["first"])
    if verdict == "unreached":  # nothing the upstream sent reached the gateway at all
        first = (
            '<p class="first">Not compared: the upstream never sent this (it got no '
            "request); its recording is shown for reference.</p>"
        )
    return f'<h3>Content</h3>{first}<div class="sides">{_up(ev)}{_gw(ev)}</div>'


def _request(requests: dict[str, Any], side: str) -> str:
    """One request of a turn: the client's to the gateway, or the one it forwarded."""
    if side == "client":
        head, body = "the client sent the gateway", requests.get("client")
    else:
        path = requests.get("path")
        head = "the gateway forwarded" + (f" ({path})" if path else "")
        body = requests.get("upstream")
    shown = _field(body, None) if body else '<p class="muted">nothing reached the upstream</p>'
    return (
        f'<div class="request" data-request="{side}"><div class="label">{esc(head)}</div>'
        f"{shown}</div>"
    )


def _requests_pair(ev: dict[str, Any], differences: list[Finding]) -> str:
    """A one-turn scenario's two requests side by side, folded unless they differ: then
    open, with what differs listed above them (the ``request:*`` findings)."""
    requests = ev["requests"]
    n = len(differences)
    said = f" ({n} difference{'s' if n != 1 else ''})" if n else " (the same meaning)"
    return (
        f'<details class="requests"{" open" if n else ""}><summary>requests{said}</summary>'
        f'{_request_differences(differences)}<div class="sides">'
        f"{_request(requests, 'client')}{_request(requests, 'upstream')}</div></details>"
    )


def _request_differences(differences: list[Finding]) -> str:
    """What the upstream's request lost, changed or added of the client's: a line each."""
    if not differences:
        return ""
    items = [
        f'<li class="sev-{esc(f.severity)}"><span class="sev">{esc(f.severity)}</span> '
        f"<code>{esc(f.key)}</code> {esc(f.message)}</li>"
        for f in differences
    ]
    return '<ul class="request-diffs">' + "".join(items) + "</ul>"


def _is_request_difference(f: Finding) -> bool:
    return f.key.startswith("request:") or f.field == "request.tools"


def _turns(evs: list[dict[str, Any]], differences: list[Finding]) -> str:
    """A conversation's turns side by side, a column each: its two requests (under the
    first, what its upstream request lost, changed or added), then what the upstream sent
    and what the gateway's client got."""
    out = [f'<h3>Turns</h3><div class="turns" style="--turns:{len(evs)}">']
    for ev in evs:
        requests = ev.get("requests") or {}
        mine = [f for f in differences if (f.turn or 1) == ev["turn"]]
        out.append(
            f'<div class="turn" data-turn="{ev["turn"]}"><h4>turn {ev["turn"]}</h4>'
            f"{_first(ev['first'])}{_request_differences(mine)}{_request(requests, 'client')}"
            f"{_request(requests, 'upstream')}{_up(ev)}{_gw(ev)}</div>"
        )
    out.append("</div>")
    return "".join(out)


_W, _LEFT, _RIGHT = 1000.0, 80.0, 20.0
_LANE = {"up": 32.0, "gw": 72.0}


def _x(t: float, tmax: float) -> float:
    return round(_LEFT + (_W - _LEFT - _RIGHT) * (max(t, 0.0) / tmax), 1)


def _ttft(marks: list[dict[str, Any]]) -> float | None:
    return next((m["t"] for m in marks if m["content"]), None)


def _timeline(ev: dict[str, Any]) -> str:
    """When each event arrived, upstream above, gateway below; content-bearing events drawn
    thicker, time to first token dashed, each fault a red triangle, the longest gap named;
    each piece the gateway carried joined to the upstream write it came from, the time the
    gateway added to it shaded on the gateway's lane."""
    up, gw, faults = ev["upstream_marks"], ev["gateway_marks"], ev["faults"]
    pairs = ev.get("pairs") or []
    times = [m["t"] for m in up] + [m["t"] for m in gw] + [f["t"] for f in faults]
    times += [t for pair in pairs for t in pair]
    if not times:
        return ""
    tmax = max(max(times), 0.001) * 1.02
    out = [
        f'<h3>Timeline</h3><svg class="timeline" viewBox="0 0 {_W:.0f} 112" role="img" '
        f'aria-label="when each event arrived">',
        f'<text x="4" y="{_LANE["up"] + 4}">upstream</text>',
        f'<text x="4" y="{_LANE["gw"] + 4}">gateway</text>',
    ]
    for k in range(5):
        t = tmax * k / 4
        x = _x(t, tmax)
        out.append(f'<line class="axis" x1="{x}" y1="14" x2="{x}" y2="90"/>')
        out.append(f'<text x="{x}" y="106" text-anchor="middle">{t:.2f} s</text>')
    out += _pairs(pairs, tmax)
    for side, marks in (("up", up), ("gw", gw)):
        y = _LANE[side]
        first = _ttft(marks)
        if first is not None:
            x = _x(first, tmax)
            out.append(
                f'<line class="ttft {side}" x1="{x}" y1="{y - 14}" x2="{x}" y2="{y + 14}">'
                f"<title>{'upstream' if side == 'up' else 'gateway'} time to first token: "
                f"{first:.3f} s</title></line>"
            )
        for m in marks:
            x = _x(m["t"], tmax)
            cls = f"ev {side}" + (" c" if m["content"] else "")
            req = f" (request {m['request']})" if m.get("request", 1) != 1 else ""
            out.append(
                f'<line class="{cls}" x1="{x}" y1="{y - 8}" x2="{x}" y2="{y + 8}">'
                f"<title>{m['t']:.3f} s {esc(m['label'])}{req}</title></line>"
            )
        gap = _longest_gap(marks)
        if gap is not None and gap[1] - gap[0] >= 0.5:
            a, b = _x(gap[0], tmax), _x(gap[1], tmax)
            out.append(
                f'<text class="gap" x="{(a + b) / 2:.1f}" y="{y - 11}" text-anchor="middle">'
                f"gap {gap[1] - gap[0]:.2f} s</text>"
            )
    for f in faults:
        x = _x(f["t"], tmax)
        y = _LANE["up"] - 10
        out.append(
            f'<path class="fault" d="M{x},{y + 8} l-5,-9 h10 z"><title>fault {esc(f["fault"])} '
            f"took effect at {f['t']:.3f} s (request {f['request']})</title></path>"
        )
    out.append("</svg>")
    extra = []
    sides = (("upstream", ev["upstream_events"], up), ("gateway", ev["gateway_events"], gw))
    for side, n, marks in sides:
        t = _ttft(marks)
        extra.append(
            f"{side}: {n} events" + (f", first token at {t:.3f} s" if t is not None else "")
            + (f" (first {len(marks)} drawn)" if n > len(marks) else "")
        )  # fmt: skip
    out.append(f'<p class="muted">{esc("; ".join(extra))}</p>')
    return "".join(out)


def _pairs(pairs: list[list[float]], tmax: float) -> list[str]:
    """Each carried piece: a line from its upstream write to its gateway read, and the added
    time shaded on the gateway's lane (overlapping shades darken where delay piles up)."""
    out = []
    top, bottom = _LANE["up"] + 8, _LANE["gw"] - 8
    for u, g in pairs:
        xu, xg = _x(u, tmax), _x(g, tmax)
        out.append(
            f'<line class="pair" x1="{xu}" y1="{top}" x2="{xg}" y2="{bottom}"><title>carried: '
            f"upstream {u:.3f} s, gateway {g:.3f} s ({(g - u) * 1000:+.0f} ms)</title></line>"
        )
        if xg - xu >= 1:
            out.append(
                f'<rect class="added" x="{xu}" y="{bottom}" width="{xg - xu:.1f}" height="16">'
                f"<title>added {(g - u) * 1000:.0f} ms</title></rect>"
            )
    return out


def _longest_gap(marks: list[dict[str, Any]]) -> tuple[float, float] | None:
    best: tuple[float, float] | None = None
    for a, b in itertools.pairwise(marks):
        if best is None or b["t"] - a["t"] > best[1] - best[0]:
            best = (a["t"], b["t"])
    return best
