"""Benchmark: `replay` timing at --speed 1 and throughput at --speed 0, with `record` on it.

Run:  python tests/benchmarks/bench_replay.py [--quick] [--server thread|process]

Prints, measured in the same run against servers on 127.0.0.1:
1. Lateness at --speed 1: a recording of ~2000 events with seeded 1-20 ms gaps, served to
   1 client and to 20 concurrent clients (threads, httpx). Two views, in ms:
   - server: when each write left versus its schedule (``ReplayServer(measure=True)``);
   - client: when each write's last byte arrived versus its schedule, both relative to the
     first body byte (so connection set-up is not counted; a first write later than the
     typical one shows as negative values).
   Target: server p99 <= 2 ms.
2. Throughput at --speed 0: a ~50 MB recording (realistic OpenAI chunks, cut into ~4 KB
   reads) served to `sseconform.record.record(...)` writing a recording to a temp file, and to
   a plain httpx ``client.stream(...).iter_raw()`` reader that discards the bytes, alternated
   on the same server; median MB/s of each and the ratio. Target: record >= 0.5x plain.

Recordings are generated into a temp dir here, never stored. ``--server process`` runs the
server in a child process instead of a thread of this one, so the clients' Python work does
not share the server's GIL (the default, ``thread``, is how tests and tools run it).
"""

from __future__ import annotations

import argparse
import bisect
import contextlib
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from sseconform.record import Request, record
from sseconform.recording.format import Response, write_recording
from sseconform.replay.plan import load
from sseconform.replay.routing import SELECT_HEADER
from sseconform.replay.server import ReplayServer

PATH = "/v1/chat/completions"
BODY = b'{"model": "gpt-4o", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'
READ = 4096  # bytes per read in the throughput recording
TARGET_P99_MS = 2.0
TARGET_RATIO = 0.5


# -- recordings ------------------------------------------------------------------------------

HEAD = (
    '{"id":"chatcmpl-bench00000000000000000000","object":"chat.completion.chunk",'
    '"created":1700000000,"model":"gpt-4o","system_fingerprint":"fp_bench","choices":'
    '[{"index":0,"delta":'
)
WORDS = ["Hello", " world", ",", " this", " is", " a", " token", " stream", ".", " Ça", " va"]


def events(n: int, rng: random.Random) -> list[bytes]:
    """``n`` OpenAI-shaped chat chunks (~200 bytes each), then the finish chunk and [DONE]."""
    out = [f'data: {HEAD}{{"role":"assistant","content":""}},"finish_reason":null}}]}}\n\n']
    for _ in range(n):
        word = json.dumps(rng.choice(WORDS), ensure_ascii=False)
        pad = "".join(rng.choices("abcdefXYZ0123", k=rng.randint(2, 12)))
        out.append(
            f'data: {HEAD}{{"content":{word}}},"logprobs":null,"finish_reason":null}}],'
            f'"obfuscation":"{pad}"}}\n\n'
        )
    out.append(f'data: {HEAD}{{}},"logprobs":null,"finish_reason":"stop"}}]}}\n\n')
    out.append("data: [DONE]\n\n")
    return [e.encode() for e in out]


def save(path: Path, reads: list[tuple[float, bytes]], t_head: float) -> None:
    head = Response(200, "OK", "HTTP/1.1", [("content-type", "text/event-stream")], t=t_head)
    request = {"method": "POST", "url": f"https://api.openai.com{PATH}", "body": None}
    write_recording(path, reads, response=head, request=request)


def timed_recording(path: Path, n_events: int, seed: int = 1) -> list[tuple[float, bytes]]:
    """One event per read, 1-20 ms apart (seeded), the first 50 ms after the request."""
    rng = random.Random(seed)
    t = 0.05
    reads = []
    for ev in events(n_events, rng):
        reads.append((round(t, 6), ev))
        t += rng.uniform(0.001, 0.020)
    save(path, reads, t_head=0.04)
    return reads


def bulk_recording(path: Path, total: int, seed: int = 2) -> int:
    """About ``total`` bytes of chunks, cut every READ bytes (as a network read would)."""
    rng = random.Random(seed)
    block = b"".join(events(2000, rng)[1:-2])  # the middle: content chunks only
    ends = events(0, rng)
    parts = [ends[0]]
    size = len(ends[0])
    while size < total:
        parts.append(block)
        size += len(block)
    parts += ends[1:]
    body = b"".join(parts)
    reads: list[tuple[float, bytes]] = []
    pos = 0
    while pos < len(body):
        # Cut anywhere, as a network read does, but not inside "Ç": every read stays text.
        end = _char_boundary(body, min(pos + READ, len(body)))
        reads.append((round(1e-5 * len(reads), 6), body[pos:end]))
        pos = end
    save(path, reads, t_head=0.0)
    return len(body)


def _char_boundary(body: bytes, i: int) -> int:
    while i < len(body) and (body[i] & 0xC0) == 0x80:
        i += 1
    return i


# -- servers ---------------------------------------------------------------------------------


@dataclass
class Running:
    url: str
    lateness: Callable[[int], list[list[float]]]  # wait for n responses; seconds per write


@contextlib.contextmanager
def serving(paths: list[Path], speed: float, measure: bool, where: str) -> Iterator[Running]:
    if where == "thread":
        srv = ReplayServer([load(str(p)) for p in paths], speed=speed, measure=measure)
        with srv.running():
            yield Running(srv.url, lambda n: _wait_served(srv, n))
        return
    cmd = [sys.executable, __file__, "--serve-child", str(speed), str(int(measure))]
    cmd += [str(p) for p in paths]
    child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert child.stdin is not None and child.stdout is not None
    try:
        url = child.stdout.readline().strip()
        if not url.startswith("http://127.0.0.1:"):
            raise SystemExit(f"server child did not start: {url!r}")

        def lateness(n: int) -> list[list[float]]:
            assert child.stdin is not None and child.stdout is not None
            child.stdin.write(f"{n}\n")
            child.stdin.flush()
            result: list[list[float]] = json.loads(child.stdout.readline())
            return result

        yield Running(url, lateness)
    finally:
        child.stdin.close()
        child.wait(timeout=30)


def _wait_served(srv: ReplayServer, n: int) -> list[list[float]]:
    """The server logs a response just after its last byte: wait for all ``n``, then take."""
    deadline = time.monotonic() + 30
    while len(srv.served) < n and time.monotonic() < deadline:
        time.sleep(0.01)
    served, srv.served = srv.served, []
    return [s.lateness for s in served]


def serve_child(speed: float, measure: bool, paths: list[str]) -> None:
    srv = ReplayServer([load(p) for p in paths], speed=speed, measure=measure)
    with srv.running():
        print(srv.url, flush=True)
        for line in sys.stdin:
            print(json.dumps(_wait_served(srv, int(line))), flush=True)


# -- clients ---------------------------------------------------------------------------------


def headers(name: str) -> dict[str, str]:
    return {SELECT_HEADER: name, "content-type": "application/json"}


@dataclass
class Arrivals:
    """Per read on the client: when it arrived and how many body bytes had come by then."""

    times: list[float] = field(default_factory=list)
    totals: list[int] = field(default_factory=list)


def read_timed(url: str, name: str, start: threading.Barrier | None) -> Arrivals:
    got = Arrivals()
    total = 0
    clock = time.perf_counter
    with httpx.Client(timeout=httpx.Timeout(60.0)) as client:
        if start is not None:
            start.wait()
        with client.stream("POST", url + PATH, headers=headers(name), content=BODY) as resp:
            resp.raise_for_status()
            for chunk in resp.iter_raw():
                got.times.append(clock())
                total += len(chunk)
                got.totals.append(total)
    return got


def run_clients(url: str, name: str, n: int) -> list[Arrivals]:
    """``n`` threads, each with its own httpx client, all sending at once."""
    start = threading.Barrier(n)
    results: list[Arrivals | BaseException] = [Arrivals()] * n

    def one(i: int) -> None:
        try:
            results[i] = read_timed(url, name, start)
        except BaseException as exc:
            results[i] = exc
            start.abort()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    out = []
    for r in results:
        if isinstance(r, BaseException):
            raise r
        out.append(r)
    return out


def client_lateness(got: Arrivals, reads: list[tuple[float, bytes]]) -> list[float]:
    """Each write's last byte: arrival minus schedule, both from the first body byte."""
    out = []
    end = 0
    t0, r0 = reads[0][0], got.times[0]
    for t, data in reads:
        end += len(data)
        i = bisect.bisect_left(got.totals, end)
        if i == len(got.totals):
            raise SystemExit("the client got fewer bytes than the recording holds")
        out.append((got.times[i] - r0) - (t - t0))
    return out


def read_plain(client: httpx.Client, url: str, name: str) -> int:
    n = 0
    with client.stream("POST", url + PATH, headers=headers(name), content=BODY) as resp:
        for chunk in resp.iter_raw():
            n += len(chunk)
    return n


def read_record(client: httpx.Client, url: str, name: str, out: Path) -> int:
    req = Request("POST", url + PATH, list(headers(name).items()), BODY)
    outcome = record(req, str(out), stall_timeout=60.0, client=client)
    if not outcome.complete:
        raise SystemExit(f"record did not complete: {outcome.reason}")
    return outcome.progress.bytes


# -- reports ---------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    s = sorted(values)
    return s[min(len(s) - 1, max(0, math.ceil(q / 100 * len(s)) - 1))]


def row(label: str, seconds: list[float], target: bool) -> None:
    ms = [x * 1e3 for x in seconds]
    p99 = pct(ms, 99)
    mark = ""
    if target:
        ok = "met" if p99 <= TARGET_P99_MS else "MISSED"
        mark = f"   (target p99 <= {TARGET_P99_MS:g} ms: {ok})"
    print(
        f"  {label:<34} p50 {pct(ms, 50):6.2f}  p99 {p99:6.2f}  max {max(ms):7.2f} ms"
        f"  n={len(ms)}{mark}"
    )


def lateness(tmp: Path, n_events: int, clients: list[int], where: str) -> None:
    path = tmp / "timed.jsonl"
    reads = timed_recording(path, n_events)
    span = reads[-1][0] - reads[0][0]
    print(
        f"\nlateness at --speed 1: {len(reads)} writes over {span:.1f} s, gaps 1-20 ms "
        f"(server in a {where})"
    )
    with serving([path], 1.0, True, where) as srv:
        for n in clients:
            results = run_clients(srv.url, path.name, n)
            server = [x for per in srv.lateness(n) for x in per]
            client = [x for r in results for x in client_lateness(r, reads)]
            if len(server) != n * len(reads):
                raise SystemExit(f"expected {n * len(reads)} server writes, got {len(server)}")
            who = "1 client" if n == 1 else f"{n} concurrent clients"
            print(f" {who}:")
            row("server: write left vs schedule", server, True)
            row("client: arrival vs schedule", client, False)


def throughput(tmp: Path, total: int, repeat: int, where: str) -> None:
    path = tmp / "bulk.jsonl"
    size = bulk_recording(path, total)
    mb = size / 1e6
    n_reads = len(load(str(path)).reads)
    t_plain: list[float] = []
    t_record: list[float] = []
    # One client each, made outside the timing: what is timed is the request and the stream
    # (httpx.Client() itself costs ~20-30 ms here, loading CA certificates).
    with (
        serving([path], 0.0, False, where) as srv,
        httpx.Client(timeout=httpx.Timeout(60.0)) as plain_client,
        httpx.Client(timeout=httpx.Timeout(60.0)) as record_client,
    ):
        out = tmp / "recorded.jsonl"
        # Warm up both paths once (imports, first connection), and check record's bytes.
        read_plain(plain_client, srv.url, path.name)
        read_record(record_client, srv.url, path.name, out)
        if load(str(out)).body != load(str(path)).body:
            raise SystemExit("record's file does not hold the bytes served")
        rec_size = out.stat().st_size
        out.unlink()
        for _ in range(repeat):
            t0 = time.perf_counter()
            got = read_plain(plain_client, srv.url, path.name)
            t_plain.append(time.perf_counter() - t0)
            if got != size:
                raise SystemExit(f"plain reader got {got} bytes of {size}")
            t0 = time.perf_counter()
            got = read_record(record_client, srv.url, path.name, out)
            t_record.append(time.perf_counter() - t0)
            out.unlink()
            if got != size:
                raise SystemExit(f"record got {got} bytes of {size}")
    plain, rec = statistics.median(t_plain), statistics.median(t_record)
    print(
        f"\nthroughput at --speed 0: {mb:.1f} MB in {n_reads} reads of ~{READ // 1024} KB "
        f"(server in a {where}; median of {repeat}, alternated)"
    )
    print(f"  {'plain httpx iter_raw, bytes discarded':<42} {plain:7.3f} s  {mb / plain:7.1f} MB/s")
    print(
        f"  {'sseconform record -> temp file':<42} {rec:7.3f} s  {mb / rec:7.1f} MB/s"
        f"   ({rec_size / 1e6:.1f} MB file)"
    )
    ratio = plain / rec
    ok = "met" if ratio >= TARGET_RATIO else "MISSED"
    print(f"  record vs plain: {ratio:5.2f}x   (target >= {TARGET_RATIO:g}x: {ok})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller recordings, fewer repeats")
    ap.add_argument(
        "--server",
        choices=["thread", "process"],
        default="thread",
        help="run the server in a thread of this process (default) or in a child process",
    )
    ap.add_argument("--skip-lateness", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--skip-throughput", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--serve-child", nargs="+", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve_child:
        speed, measure, *paths = args.serve_child
        serve_child(float(speed), measure == "1", paths)
        return
    n_events = 300 if args.quick else 2000
    total = 5_000_000 if args.quick else 50_000_000
    repeat = 3 if args.quick else 5
    with tempfile.TemporaryDirectory(prefix="sseconform-bench-") as d:
        tmp = Path(d)
        if not args.skip_lateness:
            lateness(tmp, n_events, [1, 20], args.server)
        if not args.skip_throughput:
            throughput(tmp, total, repeat, args.server)
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"\n({os.cpu_count()} CPUs, Python {sys.version.split()[0]}, load average {load})")


if __name__ == "__main__":
    main()
