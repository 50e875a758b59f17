"""``sseconform gate`` and ``sseconform diff``: grade a running gateway; compare two streams."""

from __future__ import annotations

import io
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from sseconform.cli.app import app, check_dialect, fail, refuse_overwrite
from sseconform.errors import SseconformError
from sseconform.mask import write_text
from sseconform.providers import DIALECT_GRAMMAR

if TYPE_CHECKING:  # the command imports its modules when it runs
    from collections.abc import Sequence

    from sseconform.findings import Finding
    from sseconform.gate.diff import Difference
    from sseconform.gate.rules.request import Deviation


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
            help="How the gateway is wired: litellm, portkey, claude-code-router, "
            "claude-code-proxy, llm-proxy-server, lmnr-claude-code-proxy, "
            "nullplatform-llm-gateway, or a profile file "
            "(TOML).",
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
            "messages (/v1/messages), responses (/v1/responses), gemini "
            "(/v1beta/models/MODEL:streamGenerateContent), or all; repeatable "
            "(default: the suite's, else chat).",
        ),
    ] = None,
    non_streaming: Annotated[
        bool,
        typer.Option(
            "--non-streaming",
            help="Ask each scenario without streaming: Gemini's MODEL:generateContent (with "
            "--endpoint gemini). The answer must be one JSON object holding what the upstream "
            "streamed, and an upstream failure an HTTP error; no timing is graded.",
        ),
    ] = False,
    transport: Annotated[
        str,
        typer.Option(
            help="sse (HTTP + SSE), or websocket: the Responses API's WebSocket mode "
            "(--endpoint responses is implied). The gateway's answer to Codex CLI's upgrade "
            "on /v1/responses is graded by what it costs; when it accepts, each scenario runs "
            "as a WebSocket session (later turns on the same socket with "
            "previous_response_id), graded as its SSE answer and for what WebSocket adds.",
        ),
    ] = "sse",
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
            help="text, json, junit, github, sarif (GitHub code scanning) or html (one "
            "self-contained page: use -o FILE).",
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
    deadline: Annotated[
        float | None,
        typer.Option(
            help="Seconds a scenario may take in all, however the gateway drips it (default: "
            "twice the upstream's answer, plus 15 s).",
            min=0.001,
        ),
    ] = None,
    max_bytes: Annotated[
        int | None,
        typer.Option(
            help="Bytes kept of a gateway's answer; past them it fails (default: 16 MiB plus "
            "16 times the upstream's body).",
            min=1,
        ),
    ] = None,
    budget: Annotated[
        list[str] | None,
        typer.Option(
            help="A timing budget, NAME=SECONDS: first-token, first-event, delay or silence "
            "(what the gateway may add; defaults 0.5, 0.5, 1, 5); repeatable.",
            metavar="NAME=SECONDS",
        ),
    ] = None,
    confirm_timing: Annotated[
        bool,
        typer.Option(
            help="Run the scenarios with a timing error again, after the rest, and report "
            "only the timing findings both runs had (a loaded machine can be late once by "
            "chance).",
        ),
    ] = True,
    baseline: Annotated[
        Path | None,
        typer.Option(
            help="Known deviations (a file --write-baseline wrote): reported, not failing.",
            metavar="FILE",
        ),
    ] = None,
    write_baseline_to: Annotated[
        Path | None,
        typer.Option(
            "--write-baseline",
            help="Write this run's failures as a baseline of known deviations.",
            metavar="FILE",
        ),
    ] = None,
    compare_to: Annotated[
        Path | None,
        typer.Option(
            "--compare",
            help="An earlier run's JSON report of the same suites: what this run broke, "
            "fixed and changed is printed after the report (sseconform compare).",
            metavar="FILE",
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
    wait: Annotated[
        float,
        typer.Option(
            help="Seconds to wait for the gateway to accept connections before the first "
            "scenario (a gateway started just before); not up by then: exit 1.",
            min=0,
            metavar="SECONDS",
        ),
    ] = 0.0,
) -> None:
    """Grade a running gateway: replay is its upstream, each scenario's stream is recorded,
    checked and compared with what the upstream sent. Exit 1 when a scenario fails or its
    upstream was never reached; not-applicable and known (baseline) ones do not fail."""
    from sseconform import baseline as bl
    from sseconform.gate import report
    from sseconform.gate.options import GateOptions, gateway_config, run_gate, write_baseline

    options = GateOptions(
        gateway=gateway or "",
        suites=suite or ["builtin:all"],
        profile=gateway_profile,
        headers=header or [],
        endpoints=endpoint or [],
        non_streaming=non_streaming,
        transport=transport,
        only=only or [],
        upstream_host=upstream_host,
        upstream_port=upstream_port,
        out=str(out),
        key=key,
        models=model or [],
        speed=speed,
        timeout=timeout,
        deadline=deadline,
        max_bytes=max_bytes,
        concurrency=concurrency,
        confirm_timing=confirm_timing,
        baseline=str(baseline) if baseline is not None else None,
        budgets=budget or [],
        evidence=fmt == "html" or html is not None,
    )
    try:
        if print_gateway_config:
            sys.stdout.write(gateway_config(options))
            raise typer.Exit(0)
        options.load_profile()  # a bad profile is named before anything else
    except SseconformError as exc:
        fail(str(exc))
    if gateway is None:
        fail("--gateway URL is required")
    if fmt not in (*report.FORMATS, "html"):
        fail(f"unknown format {fmt!r}; formats: {', '.join(report.FORMATS)}, html")
    _before_the_run(out, [output, html], force, upstream_host)

    def started(url: str) -> None:
        typer.echo(f"sseconform gate: upstream (replay) on {url}", err=True)

    def done(r: Any) -> None:
        again = " again: timing re-measured" if r.name in seen else ""
        seen.add(r.name)
        typer.echo(f"  {report.MARKS[r.verdict]} {r.name} ({r.seconds:.2f} s){again}", err=True)

    seen: set[str] = set()
    earlier = _earlier(compare_to)  # read before a long run
    if wait > 0:
        _wait_for(gateway, wait)

    try:
        if write_baseline_to is not None:
            bl.check_target(str(write_baseline_to), options.baseline, force=force)
        results = run_gate(options, on_start=started, on_result=done)
    except SseconformError as exc:
        fail(str(exc))
    except OSError as exc:
        where = f"{upstream_host}:{options.port(options.load_profile())}"
        fail(f"cannot run the upstream on {where}: {exc.strerror or exc}")
    _write_reports(results, fmt, output, html)
    if earlier is not None:
        _compared(earlier, results)
    if write_baseline_to is not None:
        try:
            write_baseline(results, str(write_baseline_to), force=force)
        except SseconformError as exc:
            fail(str(exc))
        typer.echo(f"sseconform gate: baseline written to {write_baseline_to}", err=True)
    why = report.untested(results)
    if why is not None:
        hint = "" if report.failed_itself(results) else _served(options, results)
        typer.echo(f"sseconform gate: nothing was tested: {why}{hint}", err=True)
        raise typer.Exit(1)
    died = report.gateway_down(results)
    if died is not None:
        typer.echo(f"sseconform gate: {died}", err=True)
        raise typer.Exit(1)
    if any(not r.passed for r in results):
        raise typer.Exit(1)


def _before_the_run(out: Path, written: list[Path | None], force: bool, upstream: str) -> None:
    """Nothing of the user's overwritten (``--out``, the reports), and a warning for an
    upstream that anyone on the network could read."""
    from sseconform.replay.server import ReplayServer

    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not force:
        fail(f"{out}: exists and is not empty (use --force to write into it, or another --out)")
    refuse_overwrite(written, force)
    if not ReplayServer.is_loopback(upstream):
        typer.echo(
            f"sseconform: warning: the replay upstream binds {upstream}, not loopback: "
            "anyone who can reach it can read the recordings",
            err=True,
        )


def _wait_for(gateway: str, seconds: float) -> None:
    """``--wait``: the run starts once the gateway accepts a connection, or ends (exit 1)."""
    from sseconform.gate.liveness import listening, wait_until_listening

    if listening(gateway):
        return
    typer.echo(f"sseconform gate: waiting up to {seconds:g} s for {gateway} to listen", err=True)
    if not wait_until_listening(gateway, seconds):
        fail(f"{gateway} did not accept a connection in {seconds:g} s (--wait): is it up?", 1)


def _earlier(path: Path | None) -> Any:
    """``--compare``'s report, read (exit 2 when it is none)."""
    from sseconform.cli.compare import read_run  # imported late: --help lists it after gate

    return None if path is None else read_run(str(path))


def _compared(earlier: Any, results: Any) -> None:
    """``--compare``: what this run broke, fixed and changed against an earlier report."""
    import json

    from sseconform.gate import report
    from sseconform.gate.compare import compare, read_report, write_comparison

    now = read_report("this run", json.dumps(report.document(results)))
    write_comparison(compare(earlier, now), sys.stderr)


def _served(options: Any, results: Any) -> str:
    """A hint: the endpoints the profile serves that the run did not grade (never the one it
    graded: that would point back where the run failed)."""
    profile = options.load_profile()
    if profile is None or options.endpoints:
        return ""
    graded = {s.endpoint for r in results for s in r.scenarios if s.applicable}
    served = [
        e for e, r in profile.endpoints.items() if r.supported is not False and e not in graded
    ]
    if not served:
        return ""
    return f" (the profile serves {', '.join(served)}: run with --endpoint {served[0]})"


def _write_reports(results: Any, fmt: str, output: Path | None, html: Path | None) -> None:
    """The report in ``fmt`` to ``output`` (or stdout), and the HTML page to ``html``."""
    from sseconform.gate import report

    page = None
    if fmt == "html" or html is not None:
        from sseconform.html.gate import render

        page = render(results)
        if html is not None:
            write_text(html, page)
    if page is not None and fmt == "html":
        text = page
    else:
        buf = io.StringIO()
        report.write(results, buf, fmt)
        text = buf.getvalue()
    if output is None:
        sys.stdout.write(text)
    else:
        write_text(output, text)
        # the report went to a file: stdout still gets the verdict, for a CI log
        typer.echo(f"sseconform gate: {report.totals(results)}; {fmt} report in {output}")


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
    timing: Annotated[
        bool,
        typer.Option(
            help="Also judge when the content arrived: both recordings' read times counted "
            "from the request each side got (gate's timing findings, at its budgets).",
        ),
    ] = False,
    forwarded: Annotated[
        float,
        typer.Option(
            help="With --timing: seconds between the gateway getting the client's request "
            "and the upstream getting the gateway's.",
            min=0.0,
        ),
    ] = 0.0,
    budget: Annotated[
        list[str] | None,
        typer.Option(
            help="With --timing: NAME=SECONDS (first-token, first-event, delay, "
            "silence); repeatable."
        ),
    ] = None,
    requests: Annotated[
        bool,
        typer.Option(
            "--requests",
            help="Compare two requests instead: UPSTREAM is what the gateway asked its "
            "provider (in --from's words), GATEWAY what its client asked it (in "
            "--gateway-from's); each a JSON body or a recording.",
        ),
    ] = False,
) -> None:
    """Compare what a gateway's stream means with what its upstream sent; exit 1 if they differ.

    Text, reasoning, tool calls (names; arguments as JSON), finish reasons, usage, errors and
    the opaque state a client sends back on its next turn; each difference is located in
    both streams (frame and byte offset). Either stream may be of any grammar: chunks,
    Anthropic Messages events, Responses events or Gemini. A warning alone (state a client
    of another dialect may not be able to hold) is shown and exits 0.
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
    if requests:
        _diff_requests(upstream, gateway, dialect, gateway_dialect, fmt)
    try:
        a = load(upstream)
        b = load(gateway)
    except SseconformError as exc:
        fail(str(exc))
    if timing and b.whole:
        fail("--timing: the gateway's answer is not streamed (generateContent): no timing")
    ca = content_of([x for _, x in a.reads], dialect, whole=a.whole)
    # Any grammar is read by meaning: a native gateway stream goes through the same reference
    # translation as a native upstream, so the two compare piece by piece (a non-streaming
    # answer, its recording's URL says, as one object).
    spoken_as = None if gateway_dialect == "auto" else gateway_dialect
    cb = content_of([x for _, x in b.reads], spoken_as, whole=b.whole)
    spoken = b.dialect if gateway_dialect == "auto" else gateway_dialect
    grammar = DIALECT_GRAMMAR.get(spoken or "", "chat")  # whose words name the fields
    diffs = compare(ca, cb, usage=usage, prefix_only=prefix, grammar=grammar)
    if not timing:
        report.write_diff(diffs, sys.stdout, fmt, upstream, gateway)
        raise typer.Exit(1 if _errors(diffs) else 0)
    from sseconform.gate.timing import DEFAULT_BUDGETS, measure_recordings, parse_budget
    from sseconform.gate.timing_rules import judge

    try:
        budgets = DEFAULT_BUDGETS.over(dict(parse_budget(x) for x in budget or []))
    except SseconformError as exc:
        fail(str(exc))
    gw_dialect = None if gateway_dialect == "auto" else gateway_dialect
    tm = measure_recordings(a, b, dialect, gw_dialect, forwarded)
    if tm is None:
        fail("--timing needs both streams to have content with read times (recordings)")
    tm.grammar = grammar
    timed = judge(tm, budgets)
    report.write_diff(diffs, sys.stdout, fmt, upstream, gateway, tm.to_dict(), timed)
    if _errors(diffs) or _errors(timed):
        raise typer.Exit(1)


def _diff_requests(
    upstream: str, gateway: str, dialect: str | None, gateway_dialect: str, fmt: str
) -> NoReturn:
    """``diff --requests``: what reached the provider of what the client asked, parameter by
    parameter, as ``gate`` grades it; exit 1 on an error."""
    from sseconform.gate import report
    from sseconform.gate.asked import diff_requests, read_request_file

    try:
        found = diff_requests(
            read_request_file(upstream), read_request_file(gateway), dialect, gateway_dialect
        )
    except SseconformError as exc:
        fail(str(exc))
    report.write_request_diff(found, sys.stdout, fmt, upstream, gateway)
    raise typer.Exit(1 if _errors(found) else 0)


def _errors(found: Sequence[Difference | Finding | Deviation]) -> bool:
    """Is one of them an error (a warning alone, such as state a client of another dialect
    cannot hold, does not fail ``diff``)? (The catalog is imported here: a command that
    compares nothing starts without it.)"""
    from sseconform.rules.catalog import Severity

    return any(d.severity is Severity.ERROR for d in found)
