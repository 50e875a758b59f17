"""``sseconform load``: conformance under load, on Locust (headless), every stream graded."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from sseconform.cli.app import app, fail, holds_data
from sseconform.errors import SseconformError
from sseconform.mask import write_text


@app.command(no_args_is_help=True)
def load(
    gateway: Annotated[
        str | None,
        typer.Option(help="The gateway's base URL (or its /chat/completions URL).", metavar="URL"),
    ] = None,
    suite: Annotated[
        list[str] | None,
        typer.Option(help="A suite file, or builtin:NAME (default builtin:all); repeatable."),
    ] = None,
    gateway_profile: Annotated[
        str | None,
        typer.Option(
            help="litellm, portkey, claude-code-router, claude-code-proxy, llm-proxy-server, "
            "lmnr-claude-code-proxy, "
            "nullplatform-llm-gateway, or a profile file (TOML).",
            metavar="PROFILE",
        ),
    ] = None,
    endpoint: Annotated[
        list[str] | None,
        typer.Option(help="chat, messages, responses, gemini or all; repeatable (default chat)."),
    ] = None,
    only: Annotated[
        list[str] | None, typer.Option(help="Only scenarios matching this glob; repeatable.")
    ] = None,
    header: Annotated[
        list[str] | None,
        typer.Option("--header", "-H", help="'Name: value' with every request; repeatable."),
    ] = None,
    users: Annotated[int, typer.Option(help="Concurrent simulated users.", min=1)] = 10,
    spawn_rate: Annotated[float, typer.Option(help="Users started per second.", min=0.1)] = 10.0,
    run_time: Annotated[str, typer.Option(help="How long: 30s, 5m, 1h30m.")] = "30s",
    speed: Annotated[
        float, typer.Option(help="Upstream timing: 1 recorded, 0 fastest.", min=0.0)
    ] = 1.0,
    upstream_host: Annotated[str, typer.Option(help="Where the replay upstream binds.")] = (
        "127.0.0.1"
    ),
    upstream_port: Annotated[
        int | None, typer.Option(help="The replay upstream's port (default: the profile's).")
    ] = None,
    key: Annotated[
        str | None,
        typer.Option(help="Bearer key for the gateway (default: $SSECONFORM_GATEWAY_KEY)."),
    ] = None,
    fmt: Annotated[
        str, typer.Option("--format", help="text, json or html (one self-contained page).")
    ] = "text",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the report here.", metavar="FILE")
    ] = None,
    csv: Annotated[
        str | None, typer.Option(help="Locust's CSV files, with this prefix.", metavar="PREFIX")
    ] = None,
    write_settings: Annotated[
        Path | None,
        typer.Option(
            help="Write the settings file for running Locust by hand (distributed: see "
            "README) and exit; the upstream is then yours to start. With -o FILE, the master "
            "writes its JSON report there when it quits.",
            metavar="FILE",
        ),
    ] = None,
    serve_upstream: Annotated[
        Path | None,
        typer.Option(
            help="Serve the replay upstream for a settings file (--write-settings) until "
            "interrupted: the shared upstream of a distributed run.",
            metavar="SETTINGS",
        ),
    ] = None,
    print_locustfile: Annotated[
        bool, typer.Option(help="Print the path of sseconform's locustfile and exit.")
    ] = False,
    gateway_pid: Annotated[
        list[int] | None,
        typer.Option(
            help="The gateway's process ids (Linux, same machine; repeatable): their CPU share "
            "is measured too, to say whether the gateway was the limit.",
        ),
    ] = None,
    render: Annotated[
        list[Path] | None,
        typer.Option(
            help="Do not run: report on saved JSON reports (--format json) instead; with "
            "--format html, one page for them all (one run per user count, say). Repeatable.",
            metavar="REPORT",
        ),
    ] = None,
    budget: Annotated[
        float | None,
        typer.Option(
            help="Fail the run when the p99 of what the gateway added to the first content "
            "(its overhead, against the upstream's schedule) is over this many seconds.",
            metavar="SECONDS",
            min=0.0,
        ),
    ] = None,
    find_capacity: Annotated[
        bool,
        typer.Option(
            help="Step the users up (1, 2, 4, ... to --users, each --step-time long) until "
            "a stream does not conform or the overhead breaks --budget; report the highest "
            "level that held and what limited the run.",
        ),
    ] = False,
    step_time: Annotated[
        str, typer.Option(help="How long each --find-capacity level runs: 10s, 1m.")
    ] = "10s",
    force: Annotated[bool, typer.Option(help="Replace an existing --output.")] = False,
) -> None:
    """Stream the suites' scenarios through a gateway from many users at once (Locust,
    headless) while the replay upstream answers each tagged request with its own scenario;
    every stream is checked and compared by meaning as it arrives, and timed against the
    upstream's schedule. Exit 1 when a stream did not conform or the overhead broke
    --budget (with --find-capacity: when not even one user held)."""
    from sseconform.load.run import LoadFailed, LoadOptions, failed, plan_for, run_load

    locustfile = Path(__file__).resolve().parents[1] / "load" / "locustfile.py"
    if print_locustfile:
        typer.echo(str(locustfile))
        raise typer.Exit(0)
    if serve_upstream is not None:
        _serve(serve_upstream, key or os.environ.get("SSECONFORM_GATEWAY_KEY"), speed)
        raise typer.Exit(0)
    if fmt not in ("text", "json", "html"):
        fail(f"unknown format {fmt!r}; formats: text, json, html")
    if output is not None and holds_data(output) and not force:
        fail(f"{output}: exists (use --force to replace it)")
    if render:
        _emit([_saved(p) for p in render], fmt, output)
        raise typer.Exit(0)
    if gateway is None:
        fail("--gateway URL is required")
    import importlib.util

    if write_settings is None and importlib.util.find_spec("locust") is None:
        fail("load needs Locust: pip install 'sseconform[load]'")
    options = LoadOptions(
        gateway=gateway,
        suites=list(suite or ["builtin:all"]),
        profile=gateway_profile,
        endpoints=list(endpoint or []),
        only=list(only or []),
        headers=list(header or []),
        users=users,
        spawn_rate=spawn_rate,
        run_time=run_time,
        speed=speed,
        upstream_host=upstream_host,
        upstream_port=upstream_port,
        key=key or os.environ.get("SSECONFORM_GATEWAY_KEY"),
        csv=csv,
        gateway_pids=list(gateway_pid or []),
        budget=budget,
        find_capacity=find_capacity,
        step_time=step_time,
    )
    try:
        settings, plan = plan_for(options)
        if write_settings is not None:
            if settings.upstream.endswith(":0"):
                fail("--write-settings needs --upstream-port: every process must find the upstream")
            if output is not None:  # where the master writes its report when it quits
                settings.report = str(output.resolve())
            write_settings.write_bytes(settings.to_json())
            typer.echo(f"sseconform load: settings for {len(plan)} scenarios in {write_settings}")
            raise typer.Exit(0)
        report = run_load(options, (settings, plan), say=lambda m: typer.echo(m, err=True))
    except LoadFailed as exc:
        fail(str(exc), 1)
    except SseconformError as exc:
        fail(str(exc))
    _emit([report], fmt, output)
    raise typer.Exit(1 if failed(report) else 0)


def _emit(reports: list[dict[str, Any]], fmt: str, output: Path | None) -> None:
    import json

    from sseconform.load.stats import text_report

    if fmt == "html":
        from sseconform.html.load import render

        text = render(reports)
    elif fmt == "text":
        text = "\n".join(text_report(r) for r in reports)
    else:
        text = json.dumps(reports[0] if len(reports) == 1 else reports, indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
    else:
        write_text(output, text)


def _saved(path: Path) -> dict[str, Any]:
    """A report ``load --format json`` wrote, or a clear message why it is not one."""
    from sseconform.load.saved import read_report

    try:
        return read_report(str(path))
    except SseconformError as exc:
        fail(str(exc))


def _serve(path: Path, key: str | None, speed: float) -> None:
    """The upstream of a settings file, on its host and port, until Ctrl-C."""
    import asyncio
    from urllib.parse import urlsplit

    from sseconform.load.plan import LoadSettings, prepare, rules_for_tag
    from sseconform.replay.server import ReplayServer
    from sseconform.replay.wire import new_loop

    try:
        settings = LoadSettings.from_json(path.read_bytes())
        plan = prepare(settings, key)
    except OSError as exc:
        fail(f"{path}: cannot read the settings: {exc.strerror}")
    except (ValueError, TypeError, KeyError) as exc:
        fail(f"{path}: not a settings file of sseconform load: {exc}")
    except SseconformError as exc:
        fail(str(exc))
    where = urlsplit(settings.upstream)
    recordings = list({sc.recording.name: sc.recording for sc in plan}.values())
    server = ReplayServer(
        recordings, host=where.hostname or "127.0.0.1", port=where.port or 0, speed=speed,
        strict=True,
    )  # fmt: skip
    server.resolve_tag = lambda tag: rules_for_tag(plan, tag)

    async def main() -> None:
        await server.start()
        typer.echo(f"sseconform load: upstream for {len(plan)} scenarios on {server.url}")
        sys.stdout.flush()
        await server.serve()

    try:
        with asyncio.Runner(loop_factory=new_loop) as runner:
            runner.run(main())
    except OSError as exc:
        fail(f"cannot listen on {settings.upstream}: {exc.strerror}")
    except KeyboardInterrupt:
        typer.echo("sseconform load: upstream stopped", err=True)
