"""``sseconform gate`` and ``sseconform diff``: grade a running gateway; compare two streams."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from sseconform.cli.app import app, check_dialect, fail
from sseconform.errors import SseconformError


@app.command()
def gate(
    gateway: Annotated[
        str, typer.Option(help="The gateway's base URL (or its /chat/completions URL).")
    ],
    suite: Annotated[
        list[str] | None,
        typer.Option(
            help="A suite file, or builtin:anthropic|gemini|responses|openai|all (default all); "
            "repeatable."
        ),
    ] = None,
    only: Annotated[
        list[str] | None,
        typer.Option(help="Run only scenarios whose name matches this glob; repeatable."),
    ] = None,
    upstream_host: Annotated[str, typer.Option(help="Where the replay upstream binds.")] = (
        "127.0.0.1"
    ),
    upstream_port: Annotated[
        int, typer.Option(help="The replay upstream's port (point the gateway at it).", min=0)
    ] = 0,
    out: Annotated[
        Path, typer.Option(help="Folder for the gateway's recorded streams.", metavar="DIR")
    ] = Path("sseconform-gate"),
    fmt: Annotated[str, typer.Option("--format", help="text, json, junit or github.")] = "text",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the report here.", metavar="FILE")
    ] = None,
    key: Annotated[
        str | None,
        typer.Option(
            help="Bearer key for the gateway (default: $SSECONFORM_GATEWAY_KEY).",
            show_default=False,
        ),
    ] = None,
    model: Annotated[
        list[str] | None,
        typer.Option(help="DIALECT=NAME: the model asked of the gateway; repeatable."),
    ] = None,
    speed: Annotated[
        float | None, typer.Option(help="Upstream timing: 1 recorded, 0 fastest.", min=0)
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(help="Seconds without a byte before a scenario gives up.", min=0.001),
    ] = None,
    force: Annotated[bool, typer.Option(help="Reuse a non-empty --out folder.")] = False,
) -> None:
    """Grade a running gateway: replay is its upstream, each scenario's stream is recorded,
    checked and compared with what the upstream sent. Exit 1 when a scenario fails."""
    import fnmatch

    from sseconform.gate import report
    from sseconform.gate.runner import SuiteResult, run_suite, slug
    from sseconform.gate.suite import load_suite

    if fmt not in report.FORMATS:
        fail(f"unknown format {fmt!r}; formats: {', '.join(report.FORMATS)}")
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not force:
        fail(f"{out}: exists and is not empty (use --force to write into it, or another --out)")
    if output is not None and output.exists() and not force:
        fail(f"{output}: exists (use --force to replace it)")
    models: dict[str, str] = {}
    for item in model or []:
        name, sep, value = item.partition("=")
        if not sep or not value:
            fail(f"--model {item!r}: give DIALECT=NAME")
        models[name.strip()] = value.strip()
    results: list[SuiteResult] = []
    try:
        suites = [load_suite(s) for s in (suite or ["builtin:all"])]
        for su in suites:
            bad = set(models) - set(su.models)
            if bad:
                fail(f"--model: unknown dialect(s) {', '.join(sorted(bad))}")
            su.models.update(models)
            if speed is not None:
                su.speed = speed
            if timeout is not None:
                su.timeout = timeout
    except SseconformError as exc:
        fail(str(exc))
    key = key or os.environ.get("SSECONFORM_GATEWAY_KEY")
    from sseconform.replay.server import ReplayServer

    if not ReplayServer.is_loopback(upstream_host):
        typer.echo(
            f"sseconform: warning: the replay upstream binds {upstream_host}, not loopback: "
            "anyone who can reach it can read the recordings",
            err=True,
        )

    def chosen(sc: Any) -> bool:
        return not only or any(fnmatch.fnmatchcase(sc.name, pat) for pat in only)

    def started(url: str) -> None:
        typer.echo(f"sseconform gate: upstream (replay) on {url}", err=True)

    def done(r: Any) -> None:
        mark = "PASS" if r.passed else "FAIL"
        typer.echo(f"  {mark} {r.name} ({r.seconds:.2f} s)", err=True)

    try:
        for su in suites:
            results.append(
                run_suite(
                    su,
                    gateway,
                    str(out / slug(su.name)) if len(suites) > 1 else str(out),
                    upstream_host=upstream_host,
                    upstream_port=upstream_port,
                    key=key,
                    select=chosen,
                    on_start=started,
                    on_result=done,
                )
            )
    except SseconformError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot run the upstream on {upstream_host}:{upstream_port}: {exc.strerror or exc}")
    if not any(r.scenarios for r in results):
        fail("no scenario matched --only")
    import io

    buf = io.StringIO()
    for r in results:
        report.write(r, buf, fmt)
    if output is None:
        sys.stdout.write(buf.getvalue())
    else:
        output.write_text(buf.getvalue(), encoding="utf-8")
    if not all(r.passed for r in results):
        raise typer.Exit(1)


@app.command()
def diff(
    upstream: Annotated[
        str, typer.Argument(help="The upstream's stream: native or chunks, raw or a recording.")
    ],
    gateway: Annotated[str, typer.Argument(help="The gateway's chunk stream (raw or recording).")],
    dialect: Annotated[
        str | None,
        typer.Option("--from", help="The upstream's dialect (default: detected)."),
    ] = None,
    usage: Annotated[bool, typer.Option(help="Compare the token counts too.")] = False,
    prefix: Annotated[
        bool, typer.Option(help="The upstream failed mid-stream: the gateway may stop short.")
    ] = False,
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Compare what a gateway's stream means with what its upstream sent; exit 1 if they differ.

    Text, reasoning, tool calls (names; arguments as JSON), finish reasons, usage and errors;
    each difference is located in both streams (frame and byte offset).
    """
    from sseconform.gate import report
    from sseconform.gate.content import content_of
    from sseconform.gate.diff import compare
    from sseconform.replay.plan import load

    check_dialect(dialect)
    if fmt not in ("text", "json"):
        fail(f"unknown format {fmt!r}; formats: text, json")
    try:
        a = load(upstream)
        b = load(gateway)
    except SseconformError as exc:
        fail(str(exc))
    ca = content_of([x for _, x in a.reads], dialect)
    cb = content_of([x for _, x in b.reads], "openai")
    diffs = compare(ca, cb, usage=usage, prefix_only=prefix)
    report.write_diff(diffs, sys.stdout, fmt, upstream, gateway)
    if diffs:
        raise typer.Exit(1)
