"""``sseconform load``: conformance under load, on Locust (headless), every stream graded."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Annotated, Any

import typer

from sseconform.cli.app import app, fail
from sseconform.errors import SseconformError

#: Writes later than their schedule by more than LATE, as a share of all writes, above which
#: the report says the upstream limited the run (at recorded timing: at --speed 0 there is
#: no schedule to keep).
UPSTREAM_LIMIT = 0.01
#: A process busy this share of one core (Python runs on one) was the limit.
CPU_LIMIT = 0.9


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
        typer.Option(help="litellm, portkey, or a profile file (TOML).", metavar="PROFILE"),
    ] = None,
    endpoint: Annotated[
        list[str] | None,
        typer.Option(help="chat, messages, responses or all; repeatable (default chat)."),
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
    force: Annotated[bool, typer.Option(help="Replace an existing --output.")] = False,
) -> None:
    """Stream the suites' scenarios through a gateway from many users at once (Locust,
    headless) while the replay upstream answers each tagged request with its own scenario;
    every stream is checked and compared by meaning as it arrives. Exit 1 when a stream did
    not conform."""
    import json

    from sseconform.gate.profile import ENDPOINTS, load_profile, parse_header
    from sseconform.load.plan import Settings, prepare, rules_for_tag
    from sseconform.load.stats import LoadStats
    from sseconform.replay.server import ReplayServer

    locustfile = Path(__file__).resolve().parents[1] / "load" / "locustfile.py"
    if print_locustfile:
        typer.echo(str(locustfile))
        raise typer.Exit(0)
    if serve_upstream is not None:
        _serve(serve_upstream, key or os.environ.get("SSECONFORM_GATEWAY_KEY"), speed)
        raise typer.Exit(0)
    if fmt not in ("text", "json", "html"):
        fail(f"unknown format {fmt!r}; formats: text, json, html")
    if output is not None and output.exists() and not force:
        fail(f"{output}: exists (use --force to replace it)")
    if render:
        _emit([_saved(p) for p in render], fmt, output)
        raise typer.Exit(0)
    if gateway is None:
        fail("--gateway URL is required")
    endpoints = [e for item in endpoint or [] for e in (ENDPOINTS if item == "all" else [item])]
    if any(e not in ENDPOINTS for e in endpoints):
        fail(f"--endpoint: one of {', '.join(ENDPOINTS)} or all")
    import importlib.util

    if importlib.util.find_spec("locust") is None:
        fail("load needs Locust: pip install 'sseconform[load]'")
    key = key or os.environ.get("SSECONFORM_GATEWAY_KEY")
    try:
        profile = load_profile(gateway_profile) if gateway_profile else None
        headers = [parse_header(h) for h in header or []]
    except SseconformError as exc:
        fail(str(exc))
    port = upstream_port
    if port is None:
        port = profile.upstream_port if profile and profile.upstream_port is not None else 0
    settings = Settings(
        gateway=gateway,
        upstream=f"http://{upstream_host}:{port}",
        suites=list(suite or ["builtin:all"]),
        profile=gateway_profile,
        endpoints=endpoints,
        only=list(only or []),
        headers=headers,
    )
    try:
        plan = prepare(settings, key)
    except SseconformError as exc:
        fail(str(exc))
    if not plan:
        fail("no applicable scenario (see --only, --endpoint and the profile)")
    if write_settings is not None:
        if port == 0:
            fail("--write-settings needs --upstream-port: every process must find the upstream")
        if output is not None:  # where the master writes its report when it quits
            settings.report = str(output.resolve())
        write_settings.write_bytes(settings.to_json())
        typer.echo(f"sseconform load: settings for {len(plan)} scenarios in {write_settings}")
        raise typer.Exit(0)
    recordings = list({sc.recording.name: sc.recording for sc in plan}.values())
    server = ReplayServer(recordings, host=upstream_host, port=port, speed=speed, strict=True)
    server.resolve_tag = lambda tag: rules_for_tag(plan, tag)
    with tempfile.TemporaryDirectory(prefix="sseconform-load-") as tmp, server.running():
        settings.upstream = server.url
        settings.report = str(Path(tmp) / "report.json")
        (Path(tmp) / "settings.json").write_bytes(settings.to_json())
        typer.echo(
            f"sseconform load: {len(plan)} scenarios, {users} users, upstream (replay) on "
            f"{server.url}",
            err=True,
        )
        argv = [
            sys.executable, "-m", "locust", "-f", str(locustfile), "--headless",
            "--users", str(users), "--spawn-rate", str(spawn_rate), "--run-time", run_time,
            "--host", gateway, "--stop-timeout", "30", "--exit-code-on-error", "0",
        ]  # fmt: skip
        if csv:
            argv += ["--csv", csv]
        env = {**os.environ, "SSECONFORM_LOAD_SETTINGS": str(Path(tmp) / "settings.json")}
        if key:
            env["SSECONFORM_GATEWAY_KEY"] = key
        before = resource.getrusage(resource.RUSAGE_SELF)
        gw_before = _cpu_seconds(gateway_pid or [])
        wall = time.monotonic()
        cpu_warned = _run_locust(argv, env)
        wall = time.monotonic() - wall
        gw_cpu = (_cpu_seconds(gateway_pid or []) - gw_before) / wall if gateway_pid else None
        after = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            data = json.loads(Path(settings.report).read_bytes())
        except OSError:
            fail("Locust ended without a report (its output is above)", 1)
    stats = LoadStats()
    stats.merge(data["state"])
    late = server.late_writes / server.writes if server.writes and speed > 0 else 0.0
    # the upstream runs in this process; Locust (one process, gevent) is its only child
    up_cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / wall
    gen_cpu = (kids.ru_utime + kids.ru_stime) / wall
    limited = []
    if late > UPSTREAM_LIMIT:
        limited.append(f"the upstream fell behind its schedule on {late:.1%} of its writes")
    if up_cpu > CPU_LIMIT:
        limited.append(f"the upstream kept a core {up_cpu:.0%} busy")
    if cpu_warned or gen_cpu > CPU_LIMIT:
        limited.append(f"the load generator (Locust) kept a core {gen_cpu:.0%} busy")
    if gw_cpu is not None and gw_cpu / len(gateway_pid or [1]) > CPU_LIMIT:
        limited.insert(0, f"the gateway kept its cores {gw_cpu:.0%} busy (of one core)")
    report = stats.report(
        settings={
            "gateway": gateway,
            "users": users,
            "spawn_rate": spawn_rate,
            "run_time": run_time,
            "speed": speed,
            "scenarios": len(plan),
        },
        upstream={
            "requests": server.requests_seen,
            "writes": server.writes,
            "late_writes": server.late_writes,
            "late_ms": 10,
            "max_late_ms": round(server.max_late * 1000, 1),
            "limited": "; ".join(x for x in limited if x.startswith("the upstream")),
        },
        memory={  # Linux counts ru_maxrss in KiB: the largest child, Locust's process
            "load_generator_max_rss_mb": round(kids.ru_maxrss / 1024, 1),
            "upstream_max_rss_mb": round(after.ru_maxrss / 1024, 1),
        },
        cpu={
            "upstream": round(up_cpu, 3),
            "load_generator": round(gen_cpu, 3),
            **({"gateway": round(gw_cpu, 3)} if gw_cpu is not None else {}),
        },
        limited_by=limited or ["the gateway (neither the upstream nor Locust was saturated)"],
    )
    _emit([report], fmt, output)
    raise typer.Exit(1 if report["nonconforming"] else 0)


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
        output.write_text(text, encoding="utf-8")


_KEYS = ("requests", "nonconforming", "nonconforming_rate", "ttft_ms", "throughput", "timeline")


def _saved(path: Path) -> dict[str, Any]:
    """A report ``load --format json`` wrote, or a clear message why it is not one."""
    import json

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        fail(f"{path}: cannot read it: {exc.strerror}")
    except UnicodeDecodeError as exc:
        fail(f"{path}: not a JSON report (byte {exc.start} is not UTF-8)")
    except json.JSONDecodeError as exc:
        fail(f"{path}: not a JSON report (line {exc.lineno}, column {exc.colno}): {exc.msg}")
    missing = [k for k in _KEYS if not isinstance(data, dict) or k not in data]
    if missing:
        fail(f"{path}: not a load report (--format json): no {', '.join(missing)}")
    return dict(data)


def _serve(path: Path, key: str | None, speed: float) -> None:
    """The upstream of a settings file, on its host and port, until Ctrl-C."""
    import asyncio
    from urllib.parse import urlsplit

    from sseconform.load.plan import Settings, prepare, rules_for_tag
    from sseconform.replay.server import ReplayServer, new_loop

    try:
        settings = Settings.from_json(path.read_bytes())
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


def _cpu_seconds(pids: list[int]) -> float:
    """User + system CPU seconds of processes, from /proc (0 for one that is gone)."""
    total = 0.0
    tick = os.sysconf("SC_CLK_TCK")
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick  # utime, stime
    return total


def _run_locust(argv: list[str], env: dict[str, str]) -> bool:
    """Run Locust, its output passed on to stderr; whether it warned of its own CPU."""
    warned = False
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert proc.stdout is not None

    def relay(src: IO[bytes], sink: Any) -> None:
        nonlocal warned
        for line in src:
            if b"CPU usage above" in line:
                warned = True
            sink.write(line.decode("utf-8", "replace"))
            sink.flush()

    t = threading.Thread(target=relay, args=(proc.stdout, sys.stderr), daemon=True)
    t.start()
    try:
        proc.wait()
    except KeyboardInterrupt:
        proc.terminate()
        proc.wait()
        raise
    t.join(timeout=5)
    return warned
