"""``sseconform demo-gateway``: a gateway to gate before any other, faithful or with a bug."""

from __future__ import annotations

import sys
import time
from typing import Annotated

import typer

from sseconform.cli.app import app, fail


@app.command("demo-gateway")
def demo_gateway(
    port: Annotated[
        int, typer.Option(help="Port on 127.0.0.1 to serve on; 0 picks a free one.", min=0)
    ] = 4000,
    upstream_port: Annotated[
        int,
        typer.Option(
            help="Port on 127.0.0.1 of its upstream: give `gate` the same --upstream-port.",
            min=1,
            max=65535,
        ),
    ] = 9100,
    bug: Annotated[
        list[str] | None,
        typer.Option(help="A mistake to make (repeatable): see --list-bugs.", metavar="NAME"),
    ] = None,
    list_bugs: Annotated[
        bool, typer.Option("--list-bugs", help="List the mistakes it can make, and exit.")
    ] = False,
) -> None:
    """Serve the demo gateway on 127.0.0.1: chat, Anthropic Messages, Responses and Gemini
    requests in, any provider's stream out, translated as a home-grown gateway does it.

    Faithful by default; `--bug NAME` makes it ship a bug real gateways ship, so you see
    `sseconform gate` pass and fail before you point it at your own gateway:

        sseconform demo-gateway --port 4000 --upstream-port 9100 &
        sseconform gate --gateway http://127.0.0.1:4000 --upstream-port 9100
    """
    from sseconform.demo.gateway import BUGS, Gateway, unknown_bugs

    if list_bugs:
        width = max(map(len, BUGS))
        for name, what in BUGS.items():
            typer.echo(f"{name:<{width}}  {what}")
        return
    bugs = set(bug or ())
    unknown = unknown_bugs(bugs)
    if unknown:
        fail(f"no such bug: {', '.join(unknown)} (sseconform demo-gateway --list-bugs lists them)")
    try:
        gateway = Gateway(f"http://127.0.0.1:{upstream_port}", bugs, port=port)
    except OSError as exc:
        fail(f"cannot listen on 127.0.0.1:{port}: {exc.strerror}")
    said = ", ".join(sorted(bugs)) or "none (faithful)"
    typer.echo(f"sseconform demo-gateway: serving on {gateway.url}, bugs: {said}")
    typer.echo(f"  its upstream: http://127.0.0.1:{upstream_port} (what `gate` starts there)")
    typer.echo(
        f"  grade it: sseconform gate --gateway {gateway.url} --upstream-port {upstream_port}"
    )
    sys.stdout.flush()
    try:
        with gateway.running():
            while True:
                time.sleep(3600)
    except KeyboardInterrupt:
        typer.echo("sseconform demo-gateway: stopped", err=True)
