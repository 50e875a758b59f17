"""``sseconform replay``: recordings served as a mock upstream on loopback."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from sseconform.cli.app import app, fail
from sseconform.errors import SseconformError


@app.command()
def replay(
    files: Annotated[
        list[str],
        typer.Argument(help="Recordings (or raw SSE bodies) to serve.", metavar="FILE"),
    ],
    host: Annotated[
        str, typer.Option(help="Address to bind; anything but loopback is warned about.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port; 0 picks a free one (printed).", min=0)] = 0,
    speed: Annotated[
        float, typer.Option(help="1 recorded timing, 0 as fast as possible, N scales.", min=0)
    ] = 1.0,
    split: Annotated[
        str | None,
        typer.Option(help="Re-cut the writes: N bytes, byte, event or crlf.", metavar="MODE"),
    ] = None,
    fault: Annotated[
        str | None,
        typer.Option(help="Faults for every request (see README), e.g. drop-after-events=3."),
    ] = None,
    scenario: Annotated[
        Path | None, typer.Option(help="TOML rules: which recording and fault per request.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not log requests.")] = False,
) -> None:
    """Serve recordings as a mock upstream at the providers' paths, with timing and faults."""
    import asyncio

    from sseconform.replay.plan import load
    from sseconform.replay.scenario import load_rules
    from sseconform.replay.server import ReplayServer

    try:
        loaded = [load(f) for f in files]
        rules = load_rules(str(scenario), {r.name for r in loaded}) if scenario else None
        server = ReplayServer(
            loaded,
            host=host,
            port=port,
            speed=speed,
            split=split,
            fault=fault,
            rules=rules,
            log=None if quiet else (lambda line: typer.echo(line, err=True)),
        )
    except SseconformError as exc:
        fail(str(exc))
    except ValueError as exc:
        fail(str(exc))
    if not ReplayServer.is_loopback(host):
        typer.echo(
            f"sseconform: warning: serving on {host}, not loopback: anyone who can reach it "
            "can read these recordings",
            err=True,
        )

    async def main() -> None:
        await server.start()
        typer.echo(f"sseconform replay: serving {len(loaded)} recording(s) on {server.url}")
        for r in loaded:
            model = r.model or "-"
            kind = ""
            if r.session is not None:  # a POST gets one of its turns as an SSE stream
                kind = f", a WebSocket session of {len(r.turns)} turn(s)"
            typer.echo(
                f"  {r.name}: {r.dialect or 'unknown dialect'}, model {model}, "
                f"HTTP {r.status}, {len(r.reads)} reads, {len(r.body)} bytes{kind}"
            )
        sys.stdout.flush()
        await server.serve()

    from sseconform.replay.wire import new_loop

    try:
        with asyncio.Runner(loop_factory=new_loop) as runner:
            runner.run(main())
    except OSError as exc:
        fail(f"cannot listen on {host}:{port}: {exc.strerror}")
    except KeyboardInterrupt:
        typer.echo("sseconform replay: stopped", err=True)
