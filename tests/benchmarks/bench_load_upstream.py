"""Benchmark: the replay upstream's own ceiling under ``load``, so a load run can tell when it
is the limit.

Run:  python tests/benchmarks/bench_load_upstream.py [--seconds 10] [--clients 50,200]

The upstream serves the built-in suites' recordings (every scenario of builtin:all, routed by
load tags, as ``sseconform load`` runs it, in a thread of this process). A separate process
drives it with asyncio clients on raw sockets (no HTTP library in the way), each sending tagged
requests back to back and reading every stream to its end:
1. at --speed 0: streams per second and MB/s served, for each client count;
2. at --speed 1 (recorded timing): how many streams are held at once and how late the
   upstream's writes are against their schedule (the share later than 10 ms, the worst).
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sseconform.load.plan import LoadSettings, prepare, rules_for_tag
from sseconform.replay.server import ReplayServer


async def _client(port: int, bodies: list[tuple[str, bytes]], until: float, out: list[int]) -> None:
    n = 0
    while time.monotonic() < until:
        path, body = random.choice(bodies)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        sent = body.replace(b"@N@", str(n).encode())  # before its length is taken
        head = (
            f"POST {path} HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
            f"content-length: {len(sent)}\r\nconnection: close\r\n\r\n"
        ).encode()
        writer.write(head + sent)
        n += 1
        got = 0
        try:
            while chunk := await reader.read(65536):
                got += len(chunk)
        except ConnectionError:
            pass  # a planned drop
        writer.close()
        out[0] += 1
        out[1] += got


def _drive(
    port: int, clients: int, seconds: float, bodies: list[tuple[str, bytes]], q: object
) -> None:
    async def main() -> list[int]:
        out = [0, 0]
        until = time.monotonic() + seconds
        await asyncio.gather(*(_client(port, bodies, until, out) for _ in range(clients)))
        return out

    q.put(asyncio.run(main()))  # type: ignore[attr-defined]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--clients", default="50,200")
    args = ap.parse_args()
    plan = prepare(LoadSettings(gateway="http://127.0.0.1:1", upstream="http://127.0.0.1:1"), None)
    paths = {
        "anthropic": "/v1/messages",
        "responses": "/v1/responses",
        "openai": "/v1/chat/completions",
        "gemini": "/v1beta/models/g:streamGenerateContent?alt=sse",
    }
    bodies = [
        (paths[sc.rules[0].path or "openai"], b'{"p": "[sseconform:L%d.b.@N@]"}' % sc.index)
        for sc in plan
    ]
    recordings = list({sc.recording.name: sc.recording for sc in plan}.values())
    print(f"{len(plan)} scenarios, {len(recordings)} recordings; {args.seconds:.0f} s per run")
    for speed in (0.0, 1.0):
        for clients in [int(x) for x in args.clients.split(",")]:
            server = ReplayServer(recordings, speed=speed, strict=True)
            server.resolve_tag = lambda tag: rules_for_tag(plan, tag)
            with server.running():
                q: multiprocessing.Queue[list[int]] = multiprocessing.Queue()
                p = multiprocessing.Process(
                    target=_drive, args=(server.port, clients, args.seconds, bodies, q)
                )
                p.start()
                streams, got = q.get()
                p.join()
            rate = streams / args.seconds
            late = server.late_writes / server.writes if server.writes else 0.0
            print(
                f"speed {speed:g}  {clients:>4} clients: {rate:8.1f} streams/s  "
                f"{got / args.seconds / 1e6:6.2f} MB/s  writes later than 10 ms: {late:6.2%} "
                f"(worst {server.max_late * 1000:.1f} ms)"
            )


if __name__ == "__main__":
    main()
