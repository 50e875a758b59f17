"""``sseconform inspect``: a live view of a stream reassembling."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sseconform.cli.app import app, check_dialect, color_settings, fail, holds_data, open_input
from sseconform.errors import SseconformError


@app.command()
def inspect(
    source: Annotated[
        str,
        typer.Argument(help="A recording, a raw SSE body, or - for a pipe.", metavar="FILE"),
    ],
    speed: Annotated[
        float, typer.Option(help="1 recorded timing, 0 as fast as possible, N scales.", min=0)
    ] = 1.0,
    live: Annotated[
        bool, typer.Option("--live/--no-live", help="Draw live, or print only the summary.")
    ] = True,
    dialect: Annotated[
        str | None,
        typer.Option("--from", help="anthropic, gemini, responses or openai (default: detected)."),
    ] = None,
    stall: Annotated[
        float, typer.Option(help="A gap between events this long (seconds) is a stall.", min=0)
    ] = 1.0,
    export_svg: Annotated[
        Path | None, typer.Option(help="Save the final screen as SVG.", metavar="FILE")
    ] = None,
    export_html: Annotated[
        Path | None, typer.Option(help="Save the final screen as HTML.", metavar="FILE")
    ] = None,
    force: Annotated[bool, typer.Option(help="Replace existing export files.")] = False,
    turn: Annotated[
        int,
        typer.Option(
            help="Which turn of a WebSocket session (a version-2 recording) to show: its "
            "answer as the SSE stream it would be.",
            min=1,
        ),
    ] = 1,
    non_streaming: Annotated[
        bool,
        typer.Option(
            "--non-streaming",
            help="The body answers Gemini's non-streaming generateContent: one JSON object. "
            "A recording's URL says it by itself.",
        ),
    ] = False,
) -> None:
    """Watch a stream reassemble: text, reasoning, tool-call arguments, diagnostics, gaps.

    Native dialects are translated on the fly; each native event is shown beside the chunks
    it became. Ctrl-C stops and prints the summary.
    """
    from rich.console import Console

    from sseconform.inspect import run
    from sseconform.inspect.state import StreamView

    check_dialect(dialect)
    if non_streaming and dialect not in (None, "gemini"):
        fail("--non-streaming: only Gemini's generateContent is read whole (--from gemini)")
    for target in (export_svg, export_html):
        if target is not None and holds_data(target) and not force:
            fail(f"{target}: exists (use --force to replace it)")
    fp = open_input(source)
    name = "<stdin>" if source == "-" else source
    console = Console(highlight=False, **color_settings())
    drawing = live and console.is_terminal
    code = 0
    with fp:
        try:
            head = run.read_head(fp) if source == "-" else fp.read(64)
            rec = run.open_recording(fp, head, name, turn)
        except SseconformError as exc:
            fail(str(exc))
        view = StreamView(
            name, dialect=dialect or (rec.dialect if rec is not None else None), stall=stall,
            status=rec.status if rec is not None else None,
            whole=non_streaming or (rec is not None and rec.whole),
        )  # fmt: skip
        import time
        from contextlib import nullcontext

        t0 = time.monotonic()
        piped = rec is None and source == "-"
        screen = (
            run.live_screen(
                view, console, ticking=(lambda: time.monotonic() - t0) if piped else None
            )
            if drawing
            else nullcontext()
        )
        try:
            with screen:
                try:
                    if rec is not None:
                        run.play(view, rec.reads(), speed)
                        complete, reason = rec.outcome()
                        view.finish(complete=complete, reason=reason)
                    elif piped:
                        run.pump(view, fp, head, start=t0)
                        view.finish()
                    else:
                        view.feed(0.0, head)
                        while piece := fp.read(run.READ_SIZE):
                            view.feed(0.0, piece)
                        view.finish()
                except KeyboardInterrupt:
                    view.finish(complete=False, reason="interrupted (Ctrl-C)")
                    code = 130
        except SseconformError as exc:
            fail(str(exc))
    if not drawing:
        run.print_summary(view, console)
    if export_svg is not None or export_html is not None:
        try:
            run.export(
                view,
                console.width if drawing else 100,
                str(export_svg) if export_svg else None,
                str(export_html) if export_html else None,
            )
        except OSError as exc:
            fail(f"{exc.filename}: {exc.strerror}")
        for target in (export_svg, export_html):
            if target is not None:
                typer.echo(f"saved {target}", err=True)
    if code:
        raise typer.Exit(code)
