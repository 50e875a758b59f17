"""``load --format html``: one page for one or more load runs (their JSON reports in).

Per run: the figures a person reads first (streams, conformance, TTFT and gap percentiles,
throughput, what limited the run), conformance and TTFT over time (inline SVG: streams per
second with the nonconforming ones in red, the user count, the mean TTFT), the same per
concurrency level, and every failing finding with its count, an example and what it
means. Several runs (one per user count, say) also get a table side by side.
"""

from __future__ import annotations

from typing import Any

from sseconform.html.page import esc, page, rule_doc
from sseconform.version import __version__

__all__ = ["render"]


def render(reports: list[dict[str, Any]]) -> str:
    """The page for these load reports (``sseconform load --format json``)."""
    gateway = next((r.get("settings", {}).get("gateway") for r in reports), "") or ""
    out = [
        f"<header><h1>sseconform load: {esc(gateway)}</h1>",
        f'<p class="muted">{len(reports)} run(s); sseconform {esc(__version__)}</p></header>',
    ]
    if len(reports) > 1:
        out.append(_runs(reports))
    for n, r in enumerate(reports, 1):
        out.append(_run(r, n))
    return page(f"sseconform load: {gateway}", "\n".join(out))


def _pct(r: dict[str, Any]) -> str:
    return f"{(1 - r['nonconforming_rate']) * 100:.1f}%" if r["requests"] else "-"


def _ms(v: Any) -> str:
    return f"{v:.0f}" if isinstance(v, int | float) else "-"


def _runs(reports: list[dict[str, Any]]) -> str:
    rows = []
    for n, r in enumerate(reports, 1):
        s = r.get("settings", {})
        rows.append(
            f'<tr data-run="{n}"><td><a href="#run-{n}">{n}</a></td>'
            f"<td>{esc(s.get('users', '-'))}</td><td>{r['requests']}</td><td>{_pct(r)}</td>"
            f"<td>{_ms(r['ttft_ms']['p50'])}</td><td>{_ms(r['ttft_ms']['p99'])}</td>"
            f"<td>{esc(r['throughput']['streams_per_s'] or '-')}</td>"
            f"<td>{esc('; '.join(r.get('limited_by', [])))}</td></tr>"
        )
    return (
        '<section id="runs"><h2>Runs side by side</h2><div class="wrap"><table class="sortable">'
        "<thead><tr><th>run</th><th>users</th><th>streams</th><th>conforming</th>"
        "<th>TTFT p50 ms</th><th>TTFT p99 ms</th><th>streams/s</th><th>limited by</th></tr>"
        f"</thead><tbody>{''.join(rows)}</tbody></table></div></section>"
    )


def _run(r: dict[str, Any], n: int) -> str:
    s = r.get("settings", {})
    verdict = "v-pass" if not r["nonconforming"] else "v-fail"
    head = (
        f'<section class="run" id="run-{n}" data-nonconforming="{r["nonconforming"]}">'
        f"<h2>Run {n}: {esc(s.get('users', '?'))} users, {esc(s.get('run_time', '?'))}, "
        f"speed {esc(s.get('speed', '?'))}</h2>"
        f'<p><span class="badge {verdict}">{_pct(r)} conforming</span> '
        f"{r['requests']} streams, {r['nonconforming']} nonconforming"
        + (f", {r['no_response']} with no response" if r.get("no_response") else "")
        + "</p>"
    )
    rows = []
    figures = (
        ("TTFT", "ttft_ms"),
        ("overhead (added to the first content)", "overhead_ms"),
        ("most added to a piece", "added_delay_ms"),
        ("gap", "gap_ms"),
        ("stream", "duration_ms"),
    )
    for label, key in figures:
        if key not in r:  # a report saved before the figure existed
            continue
        v = r[key]
        rows.append(
            f"<tr><td>{label} ms</td><td>{_ms(v['p50'])}</td><td>{_ms(v['p95'])}</td>"
            f"<td>{_ms(v['p99'])}</td></tr>"
        )
    t = r["throughput"]
    table = (
        '<table class="figures"><thead><tr><th></th><th>p50</th><th>p95</th><th>p99</th></tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table>"
        f"<p>throughput {esc(t['streams_per_s'] or '-')} streams/s, {esc(t['mb_per_s'] or '-')}"
        f" MB/s over {esc(t['seconds'])} s</p>"
    )
    limits = r.get("limited_by") or []
    cpu = r.get("cpu") or {}
    extra = ""
    if limits:
        extra += f"<p>limited by: {esc('; '.join(limits))}</p>"
    budget = r.get("budget")
    if budget:
        cls = "v-pass" if budget["passed"] else "v-fail"
        extra += (
            f'<p><span class="badge {cls}">overhead p99 {_ms(budget["overhead_p99_ms"])} ms, '
            f"budget {esc(budget['budget_ms'])} ms</span></p>"
        )
    capacity = r.get("capacity")
    if capacity:
        extra += f"<p>capacity: {esc(capacity['summary'])}</p>"
    if cpu:
        parts = [f"{k.replace('_', ' ')} {v:.0%}" for k, v in cpu.items()]
        extra += f'<p class="muted">CPU (share of one core): {esc(", ".join(parts))}</p>'
    return "\n".join(
        [head, table + extra, _over_time(r, n), _levels(r), _findings(r), "</section>"]
    )


_W, _H, _L, _R, _T, _B = 1000.0, 220.0, 50.0, 60.0, 14.0, 30.0


def _over_time(r: dict[str, Any], n: int) -> str:
    """Streams per second (red: nonconforming), users (line) and mean TTFT (dashed)."""
    tl = r.get("timeline") or []
    if not tl:
        return ""
    last = max(p["second"] for p in tl) + 1
    top = max(max(p["streams"] for p in tl), 1)
    users_top = max(max(p.get("users", 0) for p in tl), 1)
    ttft_top = float(max([p["ttft_ms_mean"] or 0 for p in tl] + [1]))
    plot_w, plot_h = _W - _L - _R, _H - _T - _B
    bw: float = plot_w / last

    def x(sec: float) -> float:
        return round(_L + sec * bw, 1)

    def y(v: float, vmax: float) -> float:
        return round(_T + plot_h * (1 - v / vmax), 1)

    out = [
        f'<h3>Over time</h3><svg class="timeline load" id="over-time-{n}" viewBox="0 0 '
        f'{_W:.0f} {_H:.0f}" role="img" aria-label="streams, users and TTFT per second">',
        f'<line class="axis" x1="{_L}" y1="{_T + plot_h}" x2="{_W - _R}" y2="{_T + plot_h}"/>',
        f'<text x="4" y="{_T + 8}">{top}/s</text><text x="4" y="{_T + plot_h}">0</text>',
        f'<text x="{_W - _R + 4}" y="{_T + 8}">{ttft_top:.0f} ms</text>',
    ]
    for k in range(0, last + 1, max(1, last // 8)):
        out.append(f'<text x="{x(k)}" y="{_H - 8}" text-anchor="middle">{k} s</text>')
    for p in tl:
        sec, streams, bad = p["second"], p["streams"], p["nonconforming"]
        good = streams - bad
        y_good = y(good, top)
        out.append(
            f'<rect class="bar ok" x="{x(sec)}" y="{y_good}" width="{max(bw - 1, 1):.1f}" '
            f'height="{round(_T + plot_h - y_good, 1)}"><title>second {sec}: {streams} streams, '
            f"{bad} nonconforming, {p.get('users', 0)} users, mean TTFT "
            f"{_ms(p['ttft_ms_mean'])} ms</title></rect>"
        )
        if bad:
            y_bad = y(streams, top)
            out.append(
                f'<rect class="bar bad" x="{x(sec)}" y="{y_bad}" width="{max(bw - 1, 1):.1f}" '
                f'height="{round(y_good - y_bad, 1)}"/>'
            )
    users = " ".join(f"{x(p['second'] + 0.5)},{y(p.get('users', 0), users_top)}" for p in tl)
    out.append(f'<polyline class="users" points="{users}"><title>users</title></polyline>')
    ttft = " ".join(
        f"{x(p['second'] + 0.5)},{y(p['ttft_ms_mean'], ttft_top)}"
        for p in tl
        if p["ttft_ms_mean"] is not None
    )
    if ttft:
        out.append(
            f'<polyline class="ttft-line" points="{ttft}"><title>mean TTFT</title></polyline>'
        )
    out.append("</svg>")
    out.append(
        f'<p class="muted">bars: streams ended per second (red: nonconforming); solid line: '
        f"users (up to {users_top}); dashed line: mean time to first token (right axis).</p>"
    )
    return "".join(out)


def _rate(v: float | None) -> str:
    return "-" if v is None else f"{v:.1%}"


def _levels(r: dict[str, Any]) -> str:
    levels = r.get("levels") or []
    if not levels:
        return ""
    rows = "".join(
        f"<tr><td>{lv['users']}</td><td>{lv['seconds']}</td><td>{lv['streams']}</td>"
        f"<td>{_rate(lv['conforming_rate'])}</td><td>{_ms(lv['ttft_ms_mean'])}</td>"
        + "".join(f"<td>{_ms((lv.get('overhead_ms') or {}).get(p))}</td>" for p in _P)
        + f"<td>{esc(lv['streams_per_s'] or '-')}</td></tr>"
        for lv in levels
    )
    return (
        '<h3>Per concurrency level</h3><table class="levels sortable"><thead><tr><th>users</th>'
        "<th>seconds</th><th>streams</th><th>conforming</th><th>mean TTFT ms</th>"
        "<th>overhead p50 ms</th><th>p95</th><th>p99</th>"
        f"<th>streams/s</th></tr></thead><tbody>{rows}</tbody></table>"
    )


_P = ("p50", "p95", "p99")


def _findings(r: dict[str, Any]) -> str:
    codes: dict[str, int] = r.get("codes") or {}
    if not codes:
        return "<h3>Findings</h3><p>Every stream conformed.</p>"
    examples = r.get("examples") or {}
    items = []
    for key, count in codes.items():
        doc = rule_doc(key)
        example = examples.get(key)
        items.append(
            f'<li class="finding sev-error" data-key="{esc(key)}"><span class="code">{esc(key)}'
            f"</span> in {count} stream(s)"
            + (f'<pre class="bytes">{esc(example)}</pre>' if example else "")
            + f"{doc}</li>"
        )
    bad = {n: s for n, s in (r.get("scenarios") or {}).items() if s["nonconforming"]}
    rows = "".join(
        f"<tr><td>{esc(name)}</td><td>{s['nonconforming']}</td><td>{s['requests']}</td></tr>"
        for name, s in bad.items()
    )
    table = (
        '<h3>Nonconforming by scenario</h3><table class="sortable"><thead><tr><th>scenario</th>'
        f"<th>nonconforming</th><th>streams</th></tr></thead><tbody>{rows}</tbody></table>"
        if bad
        else ""
    )
    return f'<h3>Findings</h3><ul class="findings">{"".join(items)}</ul>{table}'
