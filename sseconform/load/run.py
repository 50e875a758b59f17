"""``sseconform load`` as a library call: its options in one value, the plan they make, and
the run (Locust headless, the replay upstream in this process), so the command line only
parses and writes.

    options = LoadOptions(gateway="http://127.0.0.1:4000", users=20, budget=0.25)
    report = run_load(options)          # the JSON report, as ``--format json`` writes it

``budget``: the run fails when the p99 of what the gateway added to the first content is
over it. ``find_capacity``: the users go up in steps (1, 2, 4, ... up to ``users``, each
``step_time`` long, stopping at the first level that breaks) and the report says the highest
level at which every stream conformed within the budget, and what limited the run.
"""

from __future__ import annotations

import csv
import os
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import orjson

from sseconform.errors import SseconformError, UsageError
from sseconform.gate.prepared import Prepared
from sseconform.gate.profile import load_profile, parse_header
from sseconform.load.plan import LoadSettings, prepare, rules_for_tag
from sseconform.load.stats import LoadStats, level_broken
from sseconform.mask import open_text
from sseconform.providers import ENDPOINTS

__all__ = [
    "CPU_LIMIT",
    "UPSTREAM_LIMIT",
    "LoadFailed",
    "LoadOptions",
    "capacity_steps",
    "failed",
    "find_capacity",
    "parse_duration",
    "plan_for",
    "run_load",
    "write_levels_csv",
]

#: Writes later than their schedule by more than LATE, as a share of all writes, above which
#: the report says the upstream limited the run (at recorded timing: at --speed 0 there is
#: no schedule to keep).
UPSTREAM_LIMIT = 0.01
#: A process busy this share of one core (Python runs on one) was the limit.
CPU_LIMIT = 0.9
#: Environment variable naming the capacity steps file the locustfile's shape reads.
STEPS_ENV = "SSECONFORM_LOAD_STEPS"


class LoadFailed(SseconformError):
    """The run itself failed (not its input): Locust left no report."""


@dataclass
class LoadOptions:
    """Everything ``sseconform load`` takes, as the command line gives it."""

    gateway: str
    suites: list[str] = field(default_factory=lambda: ["builtin:all"])
    profile: str | None = None
    endpoints: list[str] = field(default_factory=list)  # "all" allowed
    only: list[str] = field(default_factory=list)
    headers: list[str] = field(default_factory=list)  # "Name: value"
    users: int = 10
    spawn_rate: float = 10.0
    run_time: str = "30s"
    speed: float = 1.0
    upstream_host: str = "127.0.0.1"
    upstream_port: int | None = None
    key: str | None = None
    csv: str | None = None  # Locust's CSV prefix; the levels table goes beside it
    gateway_pids: list[int] = field(default_factory=list)
    budget: float | None = None  # seconds: p99 of the overhead
    find_capacity: bool = False
    step_time: str = "10s"


_DURATION = re.compile(r"^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$")


def parse_duration(text: str) -> int:
    """``30s``, ``5m``, ``1h30m`` (or a number of seconds) as whole seconds."""
    text = text.strip()
    if text.isdigit():
        return int(text)
    m = _DURATION.match(text)
    if not text or m is None or not any(m.groups()):
        raise UsageError(f"{text!r} is not a duration: 30s, 5m, 1h30m")
    h, mi, s = (int(g or 0) for g in m.groups())
    return h * 3600 + mi * 60 + s


def plan_for(options: LoadOptions) -> tuple[LoadSettings, list[Prepared]]:
    """The settings every Locust process reads, and the scenarios they make."""
    endpoints = [e for item in options.endpoints for e in (ENDPOINTS if item == "all" else [item])]
    if any(e not in ENDPOINTS for e in endpoints):
        raise UsageError(f"--endpoint: one of {', '.join(ENDPOINTS)} or all")
    profile = load_profile(options.profile) if options.profile else None
    headers = [parse_header(h) for h in options.headers]
    port = options.upstream_port
    if port is None:
        port = profile.upstream_port if profile and profile.upstream_port is not None else 0
    settings = LoadSettings(
        gateway=options.gateway,
        upstream=f"http://{options.upstream_host}:{port}",
        suites=list(options.suites or ["builtin:all"]),
        profile=options.profile,
        endpoints=endpoints,
        only=list(options.only),
        headers=headers,
        speed=options.speed,
    )
    plan = prepare(settings, options.key)
    if not plan:
        raise UsageError("no applicable scenario (see --only, --endpoint and the profile)")
    return settings, plan


def capacity_steps(users: int, step_seconds: int) -> list[tuple[int, int]]:
    """(users, seconds) for each level of a capacity search: doubling up to ``users``."""
    levels, n = [], 1
    while n < users:
        levels.append(n)
        n *= 2
    levels.append(users)
    return [(u, step_seconds) for u in levels]


def run_load(
    options: LoadOptions,
    plan: tuple[LoadSettings, list[Prepared]] | None = None,
    say: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run Locust against the gateway with the replay upstream serving every tagged request;
    the JSON report (with ``budget`` and ``capacity`` when asked)."""
    from sseconform.replay.server import ReplayServer

    settings, scenarios = plan or plan_for(options)
    step_seconds = parse_duration(options.step_time) if options.find_capacity else 0
    parse_duration(options.run_time)  # a bad duration fails here, not in Locust
    recordings = list({sc.recording.name: sc.recording for sc in scenarios}.values())
    port = int(settings.upstream.rsplit(":", 1)[1])
    server = ReplayServer(
        recordings, host=options.upstream_host, port=port, speed=options.speed, strict=True
    )
    server.resolve_tag = lambda tag: rules_for_tag(scenarios, tag)
    locustfile = Path(__file__).resolve().parent / "locustfile.py"
    with tempfile.TemporaryDirectory(prefix="sseconform-load-") as tmp, server.running():
        settings.upstream = server.url
        settings.report = str(Path(tmp) / "report.json")
        (Path(tmp) / "settings.json").write_bytes(settings.to_json())
        if say is not None:
            say(
                f"sseconform load: {len(scenarios)} scenarios, {options.users} users"
                + (" (capacity search)" if options.find_capacity else "")
                + f", upstream (replay) on {server.url}"
            )
        argv = [
            sys.executable, "-m", "locust", "-f", str(locustfile), "--headless",
            "--host", options.gateway, "--stop-timeout", "30", "--exit-code-on-error", "0",
        ]  # fmt: skip
        if not options.find_capacity:  # else the steps say how many users, how long
            argv += ["--users", str(options.users), "--spawn-rate", str(options.spawn_rate),
                     "--run-time", options.run_time]  # fmt: skip
        if options.csv:
            argv += ["--csv", options.csv]
        env = {**os.environ, "SSECONFORM_LOAD_SETTINGS": str(Path(tmp) / "settings.json")}
        if options.key:
            env["SSECONFORM_GATEWAY_KEY"] = options.key
        if options.find_capacity:
            steps = {
                "steps": capacity_steps(options.users, step_seconds),
                "budget_ms": None if options.budget is None else options.budget * 1000,
            }
            (Path(tmp) / "steps.json").write_bytes(orjson.dumps(steps))
            env[STEPS_ENV] = str(Path(tmp) / "steps.json")
        before = resource.getrusage(resource.RUSAGE_SELF)
        gw_before = _cpu_seconds(options.gateway_pids)
        wall = time.monotonic()
        cpu_warned = _run_locust(argv, env)
        wall = time.monotonic() - wall
        gw_after = _cpu_seconds(options.gateway_pids)
        after = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        try:
            data = orjson.loads(Path(settings.report).read_bytes())
        except OSError:
            raise LoadFailed("Locust ended without a report (its output is above)") from None
    stats = LoadStats()
    stats.merge(data["state"])
    late = server.late_writes / server.writes if server.writes and options.speed > 0 else 0.0
    # the upstream runs in this process; Locust (one process, gevent) is its only child
    up_cpu = (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / wall
    gen_cpu = (kids.ru_utime + kids.ru_stime) / wall
    gw_cpu = (gw_after - gw_before) / wall if options.gateway_pids else None
    limited = _limits(late, up_cpu, gen_cpu, cpu_warned, gw_cpu, len(options.gateway_pids))
    report = stats.report(
        settings={
            "gateway": options.gateway,
            "users": options.users,
            "spawn_rate": options.spawn_rate,
            "run_time": options.run_time,
            "speed": options.speed,
            "scenarios": len(scenarios),
            **(
                {"find_capacity": True, "step_time": options.step_time}
                if options.find_capacity
                else {}
            ),
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
    if options.budget is not None:
        p99 = report["overhead_ms"]["p99"]
        budget_ms = options.budget * 1000
        report["budget"] = {
            "budget_ms": budget_ms,
            "overhead_p99_ms": p99,
            "passed": p99 is None or p99 <= budget_ms,
        }
    if options.find_capacity:
        report["capacity"] = find_capacity(report["levels"], options.budget, limited)
    if options.csv:
        write_levels_csv(f"{options.csv}_sseconform_levels.csv", report["levels"])
    return report


def failed(report: dict[str, Any]) -> bool:
    """Whether the run fails: a stream did not conform or the overhead broke the budget; a
    capacity search fails only when not even its first level passed."""
    if "capacity" in report:
        return report["capacity"]["highest_passing_users"] is None
    budget = report.get("budget")
    return bool(report["nonconforming"]) or (budget is not None and not budget["passed"])


def find_capacity(
    levels: list[dict[str, Any]], budget: float | None, limited: list[str]
) -> dict[str, Any]:
    """The highest level at which every stream conformed (and the overhead's p99 was within
    the budget), the first level that broke and why, and what limited the run."""
    passing: int | None = None
    broke: dict[str, Any] | None = None
    for lv in sorted(levels, key=lambda x: x["users"]):
        if not lv["streams"] or not lv["users"]:
            continue
        why = level_broken(lv, budget)
        if why is None and broke is None:
            passing = lv["users"]
        elif why is not None and broke is None:
            broke = {"users": lv["users"], "why": why}
    saturated = [x for x in limited if not x.startswith("the gateway")]
    by = (
        "; ".join(saturated)
        if saturated
        else "the gateway (neither the upstream nor Locust was saturated)"
    )
    if passing is None:
        summary = "no level passed" + (
            f": at {_users(broke['users'])} {broke['why']}" if broke else ""
        )
    elif broke is None:
        summary = f"every level passed, up to {_users(passing)} (the most tried)"
    else:
        summary = f"{_users(passing)}; at {_users(broke['users'])} {broke['why']} (limited by {by})"
    return {
        "highest_passing_users": passing,
        "broke_at": broke,
        "limited_by": by,
        "summary": summary,
    }


def _users(n: int) -> str:
    return f"{n} user" if n == 1 else f"{n} users"


def write_levels_csv(path: str, levels: list[dict[str, Any]]) -> None:
    """The per-level table beside Locust's own CSV files."""
    with open_text(path, newline="") as fp:
        w = csv.writer(fp)
        w.writerow(
            ["users", "seconds", "streams", "nonconforming", "conforming_rate", "ttft_ms_mean",
             "overhead_p50_ms", "overhead_p95_ms", "overhead_p99_ms", "streams_per_s"]
        )  # fmt: skip
        for lv in levels:
            o = lv.get("overhead_ms") or {}
            w.writerow(
                [lv["users"], lv["seconds"], lv["streams"], lv["nonconforming"],
                 lv["conforming_rate"], lv["ttft_ms_mean"], o.get("p50"), o.get("p95"),
                 o.get("p99"), lv["streams_per_s"]]
            )  # fmt: skip


def _limits(
    late: float, up_cpu: float, gen_cpu: float, warned: bool, gw_cpu: float | None, gw_n: int
) -> list[str]:
    limited = []
    if late > UPSTREAM_LIMIT:
        limited.append(f"the upstream fell behind its schedule on {late:.1%} of its writes")
    if up_cpu > CPU_LIMIT:
        limited.append(f"the upstream kept a core {up_cpu:.0%} busy")
    if warned or gen_cpu > CPU_LIMIT:
        limited.append(f"the load generator (Locust) kept a core {gen_cpu:.0%} busy")
    if gw_cpu is not None and gw_cpu / max(gw_n, 1) > CPU_LIMIT:
        limited.insert(0, f"the gateway kept its cores {gw_cpu:.0%} busy (of one core)")
    return limited


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
