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
        str | None,
        typer.Option(help="The gateway's base URL (or its /chat/completions URL).", metavar="URL"),
    ] = None,
    suite: Annotated[
        list[str] | None,
        typer.Option(
            help="A suite file, or builtin:anthropic|gemini|responses|openai|all (default all); "
            "repeatable."
        ),
    ] = None,
    gateway_profile: Annotated[
        str | None,
        typer.Option(
            help="How the gateway is wired: litellm, portkey, or a profile file (TOML).",
            metavar="PROFILE",
        ),
    ] = None,
    header: Annotated[
        list[str] | None,
        typer.Option(
            "--header",
            "-H",
            help="'Name: value' sent to the gateway with every request ({upstream} is the "
            "upstream's URL); repeatable.",
        ),
    ] = None,
    endpoint: Annotated[
        list[str] | None,
        typer.Option(
            help="The gateway endpoint the scenarios call: chat (/v1/chat/completions), "
            "messages (/v1/messages), responses (/v1/responses), or all; repeatable "
            "(default: the suite's, else chat).",
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
        int | None,
        typer.Option(
            help="The replay upstream's port (point the gateway at it; default: the profile's, "
            "else any free port).",
            min=0,
        ),
    ] = None,
    out: Annotated[
        Path, typer.Option(help="Folder for the gateway's recorded streams.", metavar="DIR")
    ] = Path("sseconform-gate"),
    fmt: Annotated[
        str,
        typer.Option(
            "--format",
            help="text, json, junit, github or html (one self-contained page: use -o FILE).",
        ),
    ] = "text",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the report here.", metavar="FILE")
    ] = None,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Also write the HTML page here (beside a JUnit or JSON report, for CI).",
            metavar="FILE",
        ),
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
    concurrency: Annotated[
        int,
        typer.Option(
            help="Scenarios in flight at once (each request is tagged in its prompt, so the "
            "upstream tells them apart; the report keeps the suite's order).",
            min=1,
            max=256,
        ),
    ] = 1,
    timeout: Annotated[
        float | None,
        typer.Option(help="Seconds without a byte before a scenario gives up.", min=0.001),
    ] = None,
    baseline: Annotated[
        Path | None,
        typer.Option(
            help="Known deviations (a file --write-baseline wrote): reported, not failing.",
            metavar="FILE",
        ),
    ] = None,
    write_baseline: Annotated[
        Path | None,
        typer.Option(
            help="Write this run's failures as a baseline of known deviations.", metavar="FILE"
        ),
    ] = None,
    print_gateway_config: Annotated[
        bool,
        typer.Option(
            help="Print the profile's gateway configuration (pointed at the upstream) and exit."
        ),
    ] = False,
    force: Annotated[
        bool, typer.Option(help="Reuse a non-empty --out folder; replace existing files.")
    ] = False,
) -> None:
    """Grade a running gateway: replay is its upstream, each scenario's stream is recorded,
    checked and compared with what the upstream sent. Exit 1 when a scenario fails or its
    upstream was never reached; not-applicable and known (baseline) ones do not fail."""
    import fnmatch

    from sseconform import baseline as bl
    from sseconform.gate import report
    from sseconform.gate.runner import (
        SuiteResult,
        apply_baseline,
        apply_known,
        baseline_of,
        run_suite,
        slug,
    )
    from sseconform.gate.suite import (
        ENDPOINTS,
        Route,
        for_endpoint,
        load_profile,
        load_suite,
        parse_header,
    )

    try:
        profile = load_profile(gateway_profile) if gateway_profile else None
    except SseconformError as exc:
        fail(str(exc))
    port = upstream_port
    if port is None:
        port = profile.upstream_port if profile and profile.upstream_port is not None else 0
    if print_gateway_config:
        if profile is None:
            fail("--print-gateway-config needs --gateway-profile")
        text = profile.config_text(f"http://{upstream_host}:{port}")
        if text is None:
            fail(f"profile {profile.name!r} has no gateway configuration to print")
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        raise typer.Exit(0)
    if gateway is None:
        fail("--gateway URL is required")
    if fmt not in (*report.FORMATS, "html"):
        fail(f"unknown format {fmt!r}; formats: {', '.join(report.FORMATS)}, html")
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not force:
        fail(f"{out}: exists and is not empty (use --force to write into it, or another --out)")
    for path in (output, html):
        if path is not None and path.exists() and not force:
            fail(f"{path}: exists (use --force to replace it)")
    rewrite = write_baseline is not None and write_baseline.exists()
    in_place = None if baseline is None else baseline.resolve()
    if (
        write_baseline is not None
        and rewrite
        and not force
        and in_place != write_baseline.resolve()
    ):
        fail(f"{write_baseline}: exists (use --force, or pass it as --baseline to update it)")
    endpoints = [e for item in endpoint or [] for e in (ENDPOINTS if item == "all" else [item])]
    bad_endpoints = [e for e in endpoints if e not in ENDPOINTS]
    if bad_endpoints:
        fail(f"--endpoint {bad_endpoints[0]!r}: one of {', '.join(ENDPOINTS)} or all")
    models: dict[str, str] = {}
    for item in model or []:
        name, sep, value = item.partition("=")
        if not sep or not value:
            fail(f"--model {item!r}: give DIALECT=NAME")
        models[name.strip()] = value.strip()
    results: list[SuiteResult] = []
    try:
        headers = [parse_header(h) for h in header or []]
        known = bl.load(str(baseline), "gate") if baseline is not None else None
        suites = [load_suite(s) for s in (suite or ["builtin:all"])]
        if endpoints:  # each suite once per endpoint asked for
            suites = [for_endpoint(su, e) for su in suites for e in dict.fromkeys(endpoints)]
        for su in suites:
            bad = set(models) - set(su.models)
            if bad:
                fail(f"--model: unknown dialect(s) {', '.join(sorted(bad))}")
            if profile is not None:
                su.profile = profile
            su.models.update(models)
            for d, name in models.items():
                su.routes.setdefault(d, Route()).model = name
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
        if known is not None:  # the verdict the report will give: KNOWN, not FAIL
            apply_known(r, known)
        typer.echo(f"  {report.MARKS[r.verdict]} {r.name} ({r.seconds:.2f} s)", err=True)

    try:
        for su in suites:
            results.append(
                run_suite(
                    su,
                    gateway,
                    str(out / slug(su.name)) if len(suites) > 1 else str(out),
                    upstream_host=upstream_host,
                    upstream_port=port,
                    key=key,
                    headers=headers,
                    select=chosen,
                    on_start=started,
                    on_result=done,
                    concurrency=concurrency,
                    evidence=fmt == "html" or html is not None,
                )
            )
    except SseconformError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"cannot run the upstream on {upstream_host}:{port}: {exc.strerror or exc}")
    if not any(r.scenarios for r in results):
        fail("no scenario matched --only")
    if known is not None:
        apply_baseline(results, known)
    import io

    buf = io.StringIO()
    if fmt == "html" or html is not None:
        from sseconform.html.gate import render

        page = render(results)
        if html is not None:
            html.write_text(page, encoding="utf-8")
    if fmt == "html":
        buf.write(page)
    else:
        report.write(results, buf, fmt)
    if output is None:
        sys.stdout.write(buf.getvalue())
    else:
        output.write_text(buf.getvalue(), encoding="utf-8")
    if write_baseline is not None:
        try:
            new = baseline_of(results)
            if rewrite:  # keep the notes, and the entries of what did not run
                ran = [s.name for r in results for s in r.scenarios if s.applicable]
                try:
                    new = bl.load(str(write_baseline), "gate").updated(new, ran)
                except SseconformError:
                    if not force:
                        raise  # --force replaces a file that is not a gate baseline
            bl.write(new, str(write_baseline))
        except SseconformError as exc:
            fail(str(exc))
        typer.echo(f"sseconform gate: baseline written to {write_baseline}", err=True)
    if any(not r.passed for r in results):
        raise typer.Exit(1)


@app.command()
def diff(
    upstream: Annotated[
        str, typer.Argument(help="The upstream's stream: native or chunks, raw or a recording.")
    ],
    gateway: Annotated[
        str, typer.Argument(help="The gateway's stream (raw or a recording): chunks by default.")
    ],
    dialect: Annotated[
        str | None,
        typer.Option("--from", help="The upstream's dialect (default: detected)."),
    ] = None,
    gateway_dialect: Annotated[
        str,
        typer.Option(
            "--gateway-from",
            help="The gateway's grammar: openai (chunks, what a chat client reads), anthropic "
            "(a /v1/messages gateway), responses (/v1/responses), gemini, or auto.",
        ),
    ] = "openai",
    usage: Annotated[bool, typer.Option(help="Compare the token counts too.")] = False,
    prefix: Annotated[
        bool, typer.Option(help="The upstream failed mid-stream: the gateway may stop short.")
    ] = False,
    fmt: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
) -> None:
    """Compare what a gateway's stream means with what its upstream sent; exit 1 if they differ.

    Text, reasoning, tool calls (names; arguments as JSON), finish reasons, usage and errors;
    each difference is located in both streams (frame and byte offset). Either stream may be
    of any grammar: chunks, Anthropic Messages events, Responses events or Gemini.
    """
    from sseconform.gate import report
    from sseconform.gate.content import content_of
    from sseconform.gate.diff import compare
    from sseconform.replay.plan import load

    check_dialect(dialect)
    if gateway_dialect != "auto":
        check_dialect(gateway_dialect)
    if fmt not in ("text", "json"):
        fail(f"unknown format {fmt!r}; formats: text, json")
    try:
        a = load(upstream)
        b = load(gateway)
    except SseconformError as exc:
        fail(str(exc))
    ca = content_of([x for _, x in a.reads], dialect)
    # Any grammar is read by meaning: a native gateway stream goes through the same reference
    # translation as a native upstream, so the two compare piece by piece.
    cb = content_of([x for _, x in b.reads], None if gateway_dialect == "auto" else gateway_dialect)
    diffs = compare(ca, cb, usage=usage, prefix_only=prefix)
    report.write_diff(diffs, sys.stdout, fmt, upstream, gateway)
    if diffs:
        raise typer.Exit(1)
