"""``check --format html``: one page for any number of checked files (results in, HTML out).

A summary table (a row per file: verdict, grammar, counts), then per file every diagnostic
with its location, the event's bytes (escaped) and its rule's documentation, the same text
``sseconform rule CODE`` prints. Known (baseline) findings are counted apart.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sseconform.api import FileResult
from sseconform.findings import Finding
from sseconform.html.page import anchors, attr, esc, page, rule_link, rules_section
from sseconform.rules.catalog import Severity
from sseconform.version import __version__

__all__ = ["render"]


def render(
    results: Sequence[FileResult],
    strict: bool,
    events: Mapping[str, Mapping[int, bytes]] | None = None,
) -> str:
    """The page; ``events``: per path, the bytes of the event at each finding's offset
    (:func:`sseconform.api.event_bytes`), shown beside the finding."""
    events = events or {}
    ok = all(r.ok(strict=strict) for r in results)
    failed = sum(not r.ok(strict=strict) for r in results)
    ids = {id(r): a for r, a in zip(results, anchors([r.path for r in results]), strict=True)}
    out = [
        "<header><h1>sseconform check</h1>",
        f'<p class="muted">sseconform {esc(__version__)}; '
        f"{'strict: warnings fail too' if strict else 'errors fail'}</p>",
        f'<p id="totals"><strong>{"ok" if ok else "FAILED"}: {len(results)} file(s) checked, '
        f"{failed} failed</strong></p></header>",
        '<section id="matrix"><h2>Summary</h2><div class="wrap"><table class="sortable">'
        "<thead><tr><th>file</th><th>verdict</th><th>grammar</th><th>frames</th>"
        "<th>errors</th><th>warnings</th><th>known</th></tr></thead><tbody>",
    ]
    for r in results:
        v = "pass" if r.ok(strict=strict) else ("unreached" if r.error else "fail")
        word = {"pass": "ok", "fail": "FAIL", "unreached": "unusable"}[v]
        out.append(
            f'<tr><td>{esc(r.path)}</td><td class="v v-{v}" data-verdict={attr(v)} '
            f'data-file={attr(r.path)}><a href="#{ids[id(r)]}">{word}</a></td>'
            f"<td>{esc(r.grammar)}</td><td>{r.frames}</td><td>{r.count(Severity.ERROR)}</td>"
            f"<td>{r.count(Severity.WARNING)}</td><td>{sum(r.known.values())}</td></tr>"
        )
    out.append("</tbody></table></div></section>")
    for r in results:
        out.append(_file(r, strict, ids[id(r)], events.get(r.path, {})))
    out.append(rules_section(d.code for r in results for d in r.findings))
    return page("sseconform check", "\n".join(out))


def _file(r: FileResult, strict: bool, anchor: str, events: Mapping[int, bytes]) -> str:
    v = "pass" if r.ok(strict=strict) else ("unreached" if r.error else "fail")
    out = [
        f'<section class="scenario s-{v}" id="{anchor}" data-verdict={attr(v)}>',
        f"<h2>{esc(r.path)}</h2>",
    ]
    if r.error is not None:
        out.append(f"<p>could not be checked: {esc(r.error)}</p></section>")
        return "".join(out)
    out.append(
        f'<p class="muted">{esc(r.kind)}, grammar {esc(r.grammar)}, {r.frames} frames, '
        f"{r.bytes} bytes</p>"
    )
    if r.findings:
        out.append('<ul class="findings">')
        out += [_diagnostic(d, events) for d in r.findings]
        out.append("</ul>")
    else:
        out.append("<p>No findings.</p>")
    extra = [f"{code}: {n} more not shown" for code, n in sorted(r.suppressed.items())]
    extra += [f"{code}: {n} known (baseline)" for code, n in sorted(r.known.items())]
    extra += [f"baseline entry no longer seen: {k}" for k in r.fixed]
    if extra:
        out.append(f'<p class="muted">{esc("; ".join(extra))}</p>')
    out.append("</section>")
    return "\n".join(out)


def _diagnostic(d: Finding, events: Mapping[int, bytes]) -> str:
    sev = d.severity.value
    where = []
    if d.line:
        where.append(f"line {d.line}")
    if d.frame is not None:
        where.append(f"frame {d.frame}")
    if d.line:
        where.append(f"byte {d.offset}")
    if d.pointer:
        where.append(f"at {d.pointer}")
    out = [
        f'<li class="finding sev-{sev}" data-key={attr(d.code)}><span class="code">'
        f'{esc(d.code)}</span> <span class="muted">{esc(sev)} {esc(d.name)}; '
        f"{esc(', '.join(where))}</span><br>{esc(d.message)}"
    ]
    raw = events.get(d.offset or 0) if d.line else None
    if raw:
        out.append(f'<div class="label">the event at byte {d.offset}</div>')
        out.append(f'<pre class="bytes">{esc(raw.decode("utf-8", "replace"))}</pre>')
    out.append(rule_link(d.code))
    out.append("</li>")
    return "".join(out)
