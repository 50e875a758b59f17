"""One stream of a load run: the request sent, the body read as it arrives and graded piece
by piece (never kept whole), within the scenario's byte cap and deadline.

Locust's user (``user.py``) calls it for every stream; the load-ceiling benchmark calls it
with a grader that times itself. It imports no Locust (whose gevent patches the sockets of
the process that imports it)."""

from __future__ import annotations

import time

import requests

from sseconform.gate.prepared import Prepared
from sseconform.load.plan import StreamGrader, StreamOutcome
from sseconform.recording.bounds import DECODED, BoundHit, Inflater

__all__ = ["READ", "send"]

#: The most read at once: each chunk as it arrives, or what has arrived up to this.
READ = 64 * 1024


def send(
    session: requests.Session,
    sc: Prepared,
    tag: str,
    speed: float,
    grader: type[StreamGrader] = StreamGrader,
) -> StreamOutcome:
    """Send ``sc``'s request (tagged ``tag``, so the upstream knows the stream) and grade
    what comes back as it arrives; an error to send, a reset or a bound hit is graded too."""
    started = time.perf_counter()
    try:
        resp = session.post(
            sc.url, data=sc.body(tag), headers=dict(sc.headers), stream=True, timeout=(10, 60)
        )
    except requests.RequestException as exc:
        failed = grader(sc, None, started, speed)
        return failed.finish(False, f"{type(exc).__name__}: {exc}")
    g = grader(sc, resp.status_code, started, speed)
    complete, reason, bound = True, "", None
    raw = resp.raw
    encoding = resp.headers.get("content-encoding", "identity").strip().lower()
    inflater = Inflater(encoding, sc.max_bytes) if encoding in DECODED else None
    deadline = started + sc.deadline
    try:
        # each chunk as it arrives, or what has arrived up to READ (never a full READ);
        # decoded here, in bounded steps (urllib3 would inflate a bomb whole)
        pieces = (
            raw.read_chunked(READ, decode_content=False)
            if raw.chunked
            else iter(lambda: raw.read1(READ, decode_content=False), b"")
        )
        for piece in pieces:
            for part in inflater.feed(piece) if inflater is not None else (piece,):
                g.feed(part)
            if g.bytes > sc.max_bytes:
                raise BoundHit("max-bytes", f"the body passed {sc.max_bytes:,} bytes")
            if time.perf_counter() > deadline:
                raise BoundHit("deadline", f"still sending after {sc.deadline:g} s")
    except BoundHit as exc:
        complete, reason, bound = False, exc.message, exc.kind
    except Exception as exc:  # a reset, a broken chunk: the stream did not end cleanly
        complete, reason = False, f"{type(exc).__name__}: {exc}"
    finally:
        resp.close()
    return g.finish(complete, reason, bound=bound)
