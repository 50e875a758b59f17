"""The view, drawn with rich: a pure function of a :class:`StreamView` and a screen size.

Everything from the wire goes through :func:`printable` first (no terminal escapes reach the
screen), and every pane reads only a window of the state (the tail of the text, the last
lines of each call's pretty-printed arguments, the last events), so a redraw costs the size
of the screen, not of the stream.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from sseconform.inspect.state import StreamView
from sseconform.model import PartialJSON
from sseconform.safetext import printable
from sseconform.wires.reassemble import ChoiceState, ToolCallState

__all__ = ["Budget", "render", "sparkline"]

_BARS = "\u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588"
_CURSOR = "\u258c"
#: Measures text for wrapping (never prints).
_MEASURE = Console(width=1000, color_system=None, file=io.StringIO())

_STATUS_STYLE = {
    "waiting": "dim",
    "streaming": "yellow",
    "complete": "green",
    "invalid": "bold red",
    "truncated": "red",
    "empty": "dim",
}


@dataclass(frozen=True, slots=True)
class Budget:
    """How many lines each pane may use."""

    text: int = 6
    args: int = 8
    calls: int = 4
    diagnostics: int = 6
    events: int = 8
    fit: bool = False  # panes shrink to their content (a summary); live panes keep their size
    compact: bool = False  # a small screen: no event log, the timeline without a frame

    @classmethod
    def for_height(cls, height: int) -> Budget:
        """Fit a terminal: the header takes 6 lines, the panes share the rest; below 30 lines
        the event log goes and the timeline loses its frame."""
        if height < 30:
            return cls(text=2, args=3, calls=1, diagnostics=2, events=0, compact=True)
        spare = max(0, height - 6 - 4 * 2 - 6)  # header, four pane frames, timeline + rules
        return cls(
            text=max(2, spare // 5),
            args=max(3, spare // 4),
            calls=3 if height < 40 else 4,
            diagnostics=max(2, spare // 8),
            events=max(3, spare // 6),
        )


#: For the final summary and exports: roomier panes.
SUMMARY = Budget(text=12, args=16, calls=8, diagnostics=20, events=12, fit=True)


def render(view: StreamView, width: int, budget: Budget = SUMMARY) -> RenderableType:
    """The whole screen for ``view`` at ``width`` columns."""
    with view.reading():
        parts: list[RenderableType] = [_header(view)]
        choices = list(view.model.choices.values())
        if not choices and not view.error_body:
            parts.append(Text("  (no content yet)", style="dim"))
        for c in choices[:4]:
            parts.extend(_choice(view, c, width, budget, many=len(choices) > 1))
        if view.model.error is not None:
            parts.append(_error(view))
        if view.error_body:
            parts.append(
                Panel(
                    Text(printable(view.error_body.strip()), "red"),
                    title=f"HTTP {view.http_status}: the response body",
                    title_align="left",
                    border_style="red",
                )
            )
        if view.native is not None and (view.native.parts or view.native.status):
            parts.append(_native(view, budget))
        parts.append(_diagnostics(view, budget))
        if budget.events:
            parts.append(_events(view, budget))
        parts.append(_timeline(view, width, compact=budget.compact))
        return Group(*parts)


# -- header -----------------------------------------------------------------------------------


def _header(view: StreamView) -> RenderableType:
    """Four lines whatever the width (long ones end in an ellipsis): the live layout counts."""
    m = view.model
    t = Text()
    dialect = view.dialect or "detecting"
    t.append("dialect ", "dim").append(dialect, "bold")
    if view.translated:
        t.append(" \u2192 chunks (translated)")
    if view.http_status is not None:
        t.append("   HTTP ", "dim").append(str(view.http_status))
    state_style = {"ended": "green", "incomplete": "red", "interrupted": "red"}.get(
        view.state, "yellow"
    )
    reason = view.end_reason
    if reason is not None and reason.startswith(view.state):
        reason = reason[len(view.state) :].strip(" ()") or None
    state = view.state if reason is None else f"{view.state} ({reason})"
    t.append("   model ", "dim").append(printable(m.model or "-"))
    t.append("   id ", "dim").append(printable(m.id or "-"))
    t.append("\n")
    t.append("state ", "dim").append(printable(state), state_style)
    t.append("   ", "dim").append(view.finish_state)
    t.append("\n")
    t.append("elapsed ", "dim").append(f"{view.elapsed:.3f} s")
    t.append("   first byte ", "dim").append(_secs(view.first_byte))
    t.append("   first token ", "dim").append(_secs(view.ttft))
    t.append("\n")
    ev = f"{view.events}"
    if view.translated:
        ev += f" \u2192 {view.chunks} chunks"
    t.append("events ", "dim").append(ev)
    t.append("   bytes ", "dim").append(f"{view.bytes:,}".replace(",", " "))
    t.no_wrap = True
    t.overflow = "ellipsis"
    title = Text(f"sseconform inspect \u2500 {printable(view.source)}")
    return Panel(t, title=title, title_align="left")


def _secs(v: float | None) -> str:
    return "-" if v is None else f"{v:.3f} s"


# -- content ----------------------------------------------------------------------------------


def _choice(
    view: StreamView, c: ChoiceState, width: int, budget: Budget, *, many: bool
) -> list[RenderableType]:
    out: list[RenderableType] = []
    text, reasoning, refusal = c.parts
    pre = f"choice {c.index} \u2500 " if many else ""
    finish = f" \u2500 finish {c.finish_reason}" if c.finish_reason else ""
    panes: list[tuple[str, str, int]] = []
    if reasoning:
        panes.append(("reasoning", reasoning.value, reasoning.total))
    if text or not (reasoning or refusal or c.tool_calls):
        panes.append(("text", text.value, text.total))
    if refusal:
        panes.append(("refusal", refusal.value, refusal.total))
    if panes:
        inner = width // len(panes) - 4  # a panel: borders and padding take 4 columns
        row = Table.grid(expand=True, padding=(0, 0))
        for _ in panes:
            row.add_column(ratio=1)
        bodies = [
            _tail_text(value, inner, budget.text, streaming=view.state == "streaming")
            for _, value, _ in panes
        ]
        height = budget.text
        if budget.fit:
            height = max(len(b.wrap(_MEASURE, inner)) for b in bodies)
        cells = [
            Panel(
                body,
                title=Text(
                    f"{pre}{name} ({total:,} chars)".replace(",", " ")
                    + (printable(finish) if name == "text" else "")
                ),
                title_align="left",
                height=min(height, budget.text) + 2,
            )
            for (name, _, total), body in zip(panes, bodies, strict=True)
        ]
        row.add_row(*cells)
        out.append(row)
    if c.tool_calls:
        out.append(_calls(c, width, budget, pre))
    return out


def _tail_text(value: str, width: int, lines: int, *, streaming: bool) -> Text:
    """The last ``lines`` screen lines of ``value``, wrapped at ``width`` as rich wraps them."""
    width = max(8, width)
    window = value[-(lines * width * 2) :]
    text = "\n".join(printable(line) for line in window.replace("\t", "    ").split("\n"))
    if streaming:
        text += _CURSOR
    rows = Text(text).wrap(_MEASURE, width)[-lines:]
    return Text("\n").join(rows)


def _calls(c: ChoiceState, width: int, budget: Budget, pre: str) -> RenderableType:
    table = Table(
        title=f"{pre}tool calls ({len(c.tool_calls)})",
        title_justify="left",
        expand=True,
        show_lines=True,
    )
    table.add_column("#", justify="right", width=2, no_wrap=True)
    table.add_column("id / name", width=max(12, width // 5), overflow="fold")
    table.add_column("status", width=14, no_wrap=True)
    table.add_column("arguments", ratio=1, no_wrap=True, overflow="crop")
    args_width = max(16, width - max(12, width // 5) - 2 - 14 - 13)
    calls = list(c.tool_calls.values())
    shown = calls[-budget.calls :]
    for call in shown:
        idn = Text(printable(call.id or "(no id)"), style="" if call.id else "red")
        idn.append("\n").append(printable(call.name or "(no name)"), "bold" if call.name else "red")
        table.add_row(
            Text(str(call.index)), idn, _call_status(call), _args(call, args_width, budget.args)
        )
    if len(calls) > len(shown):
        table.caption = f"{len(calls) - len(shown)} earlier call(s) not shown"
    return table


def _call_status(call: ToolCallState) -> Text:
    pj = call.json
    if pj is None:
        return Text("-")
    status = pj.status
    t = Text(status if status != "invalid" else "invalid JSON", _STATUS_STYLE.get(status, ""))
    t.append(f"\n{pj.size:,} chars".replace(",", " "), "dim")
    t.append(f"\n{call.fragments} frag.", "dim")
    return t


def _args(call: ToolCallState, width: int, lines: int) -> Text:
    pj: PartialJSON | None = call.json
    if pj is None or pj.size == 0:
        return Text("(none yet)", "dim")
    rows = [printable(r) for r in pj.tail(lines, width)]
    t = Text("\n".join(rows))
    status = pj.status
    if status == "invalid":
        bad = printable(pj.invalid_text)
        if bad:
            t.append(bad[: max(8, width - len(rows[-1]))], "bold red")
        t.append(f"\n\u2191 char {pj.error_offset}: {pj.error}", "red")
    elif status in ("streaming", "truncated"):
        t.append(_CURSOR if status == "streaming" else " \u2702", "yellow")
        pending = pj.pending
        if pending:
            t.append(" \u2026" + pending, "dim")
    return t


def _error(view: StreamView) -> RenderableType:
    err = view.model.error or {}
    msg = err.get("message") if isinstance(err, dict) else err
    kind = err.get("type") or err.get("code") if isinstance(err, dict) else None
    t = Text(printable(str(msg)), "red")
    if kind:
        t = Text(f"{printable(str(kind))}: ", "bold red") + t
    return Panel(t, title="error frame", title_align="left", border_style="red")


# -- diagnostics, events, timeline ------------------------------------------------------------


def _diagnostics(view: StreamView, budget: Budget) -> RenderableType:
    if view.translated and view.grammar is None:
        return Text(
            "diagnostics: native input with no grammar of its own to check, shown through "
            "sseconform's own translation",
            style="dim",
        )
    diags = view.findings
    grammar = f", {view.grammar} grammar" if view.translated else ""
    table = Table(
        title=f"diagnostics ({len(diags) + view.suppressed}{grammar})",
        title_justify="left",
        expand=True,
        box=None,
        show_header=bool(diags),
    )
    table.add_column("code", no_wrap=True)
    table.add_column("frame", justify="right", no_wrap=True)
    table.add_column("invariant", no_wrap=True)
    table.add_column("message", ratio=1, overflow="ellipsis", no_wrap=True)
    style = {"error": "red", "warning": "yellow", "info": "dim"}
    for d in diags[-budget.diagnostics :]:
        table.add_row(
            Text(d.code, style.get(str(d.severity), "")),
            Text("-" if d.frame is None else str(d.frame)),
            Text(d.invariant or ""),
            Text(d.message),
        )
    if not diags:
        table.add_row(Text("none so far", "green"), "", "", "")
    return table


def _native(view: StreamView, budget: Budget) -> RenderableType:
    """The stream's own blocks (Anthropic) or items (Responses), as they arrived."""
    native = view.native
    assert native is not None
    parts = list(native.parts.values())
    shown = parts[-max(budget.calls, 2) :]
    more = len(parts) - len(shown) + native.more
    title = f"{native.word} ({len(parts) + native.more})"
    if native.status:
        title += f": {native.status}"
    table = Table(title=title, title_justify="left", expand=True, box=None)
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("type", no_wrap=True)
    table.add_column("name / id", ratio=1, overflow="ellipsis", no_wrap=True)
    table.add_column("state", no_wrap=True)
    table.add_column("frame", justify="right", no_wrap=True)
    table.add_column("deltas", justify="right", no_wrap=True)
    table.add_column("chars", justify="right", no_wrap=True)
    for p in shown:
        style = "green" if p.state in ("closed", "done") else "yellow"
        table.add_row(
            Text(str(p.index)),
            Text(p.kind),
            Text(p.label),
            Text(p.state, style),
            Text(str(p.frame)),
            Text(str(p.deltas)),
            Text(str(p.chars)),
        )
    if more:
        table.add_row(Text(f"+{more}", "dim"), Text("earlier or past the limit", "dim"))
    return table


def _events(view: StreamView, budget: Budget) -> RenderableType:
    table = Table(
        title=f"events (last {min(budget.events, len(view.log))} of {view.logged})",
        title_justify="left",
        expand=True,
        box=None,
    )
    table.add_column("frame", justify="right", no_wrap=True)
    table.add_column("t", justify="right", no_wrap=True)
    if view.translated:
        table.add_column("native event", no_wrap=True, overflow="ellipsis", max_width=24)
    table.add_column("carried" if not view.translated else "became", ratio=1, no_wrap=True)
    rows = list(view.log)[-budget.events :]
    for r in rows:
        cells = [Text(str(r.frame)), Text(f"{r.t:.3f}")]
        if view.translated:
            cells.append(Text(printable(r.native or "")))
        cells.append(Text(r.summary))  # Text, never markup: these words come from the wire
        table.add_row(*cells)
    return table


def sparkline(gaps: list[float], stall: float) -> Text:
    """One bar per gap, height by log scale; a gap at or above ``stall`` is a red bar."""
    import math

    t = Text()
    if not gaps:
        return t
    top = max(max(gaps), 1e-3)
    lo = 1e-4
    span = math.log(top / lo) or 1.0
    for g in gaps:
        level = 0 if g <= lo else int(math.log(g / lo) / span * (len(_BARS) - 1))
        t.append(_BARS[max(0, min(level, len(_BARS) - 1))], "bold red" if g >= stall else "cyan")
    return t


def _timeline(view: StreamView, width: int, *, compact: bool = False) -> RenderableType:
    gaps = list(view.gaps)[-(width - 4) :]
    line = sparkline(gaps, view.stall)
    info = Text()
    info.append("max gap ", "dim").append(f"{view.max_gap:.3f} s")
    info.append(f"   stalls (\u2265 {view.stall:g} s) ", "dim")
    info.append(str(view.stall_count), "bold red" if view.stall_count else "")
    if view.stalls:
        worst = sorted(view.stalls, key=lambda s: -s.gap)[:3]
        info.append(": " + ", ".join(f"frame {s.frame} +{s.gap:.2f} s" for s in worst))
    cur = view.current_gap
    if view.state == "streaming" and cur >= view.stall:
        info.append(f"\nwaiting {cur:.1f} s for the next event", "bold red")
    if compact:
        info.no_wrap = True
        info.overflow = "ellipsis"
        return Group(Text("timeline ", "dim") + line, info)
    return Panel(
        Group(line, info),
        title=f"timeline: gaps between events (last {len(gaps)})",
        title_align="left",
    )
