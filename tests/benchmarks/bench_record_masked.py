"""Benchmark: what masking costs ``record``, and whether it changes what ``record`` measures.

Run:  python tests/benchmarks/bench_record_masked.py [--quick]

A Gemini answer of 3.4 MB (1 MB with ``--quick``) as Google's JSON writes it (``<>&=`` as
``\\u00XX``, ``/`` as ``\\/``: an escape every dozen bytes), its reads spread over 0.45 s,
is served by ``replay`` at its recorded timing on 127.0.0.1 and recorded by
``sseconform.record.record`` with no secret, with one 164-character key among the run's
secrets, and with a second key beside it (as a key merely present in the environment is).
Prints, for each: the seconds ``record`` took, how long the recording says the stream took
(its last read's time minus its first's) against the 0.45 s it was sent in, and how far
each read was recorded off its schedule (ms, median and worst, relative to the first byte).

Before the masker decoded escapes in one pass (issue figures, 3.4 MB): 2.2 s with no key,
48 s with the long key and its recorded times saying 46 s; 71 s with two keys.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from sseconform.mask import Masker
from sseconform.record import Request, record
from sseconform.recording.format import Response, write_recording
from sseconform.recording.redact import Redactor
from tests.hostile.masking import KEYS, LONG_KEY, escaped_gemini
from tests.record import SELECT, read_recording, replaying, timing_errors

GEMINI = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
BODY = b'{"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}'
SENT_IN = 0.45


def source(folder: Path, size: int) -> Path:
    """The escape-heavy answer as a recording, 300 reads over SENT_IN seconds."""
    body = escaped_gemini(size)
    n = 300
    step = -(-len(body) // n)
    reads = [(0.05 + i * SENT_IN / (n - 1), body[i * step : (i + 1) * step]) for i in range(n)]
    path = folder / "escapes-gemini.jsonl"
    head = Response(200, "OK", "HTTP/1.1", [("content-type", "text/event-stream")], t=0.04)
    write_recording(path, reads, response=head)
    return path


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    size = 1_000_000 if args.quick else 3_400_000
    for name in list(os.environ):
        if "proxy" in name.lower():
            del os.environ[name]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = source(folder, size)
        with replaying(path, speed=1.0) as (server, loaded):
            served = loaded[0]
            print(
                f"bench_record_masked: {len(served.body) / 1e6:.1f} MB Gemini answer, "
                f"{len(served.reads)} reads sent over {SENT_IN} s"
            )
            req = Request("POST", server.url + GEMINI, [(SELECT, path.name)], BODY)
            cases = [("no secret", []), ("one 164-character key", [LONG_KEY]),
                     ("and a second key", [LONG_KEY, KEYS["sk"]])]  # fmt: skip
            out = folder / "out.jsonl"
            record(req, str(out), force=True, redactor=Redactor(masker=Masker()))  # warm-up
            for label, keys in cases:
                runs = []
                for _ in range(args.repeat):
                    t0 = time.monotonic()
                    outcome = record(req, str(out), force=True,
                                     redactor=Redactor(masker=Masker(keys)))  # fmt: skip
                    took = time.monotonic() - t0
                    assert outcome.complete, outcome.reason
                    reads = read_recording(out)[1]
                    errors = [abs(e) * 1000 for e in timing_errors(served.reads, reads)]
                    span = reads[-1][0] - reads[0][0]
                    runs.append((took, span, statistics.median(errors), max(errors)))
                took, span, median, worst = (statistics.median(r[i] for r in runs)
                                             for i in range(4))  # fmt: skip
                print(
                    f"  {label:>22}: record took {took:5.2f} s; the recording says the stream "
                    f"took {span:5.2f} s (sent in {SENT_IN} s); reads off their schedule by "
                    f"{median:.1f} ms (median), {worst:.1f} ms (worst); medians of "
                    f"{args.repeat} runs"
                )


if __name__ == "__main__":
    main()
