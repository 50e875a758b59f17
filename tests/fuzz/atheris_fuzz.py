"""Coverage-guided fuzzing with atheris (libFuzzer): split invariance, and no stray exceptions.

Run:  python tests/fuzz/atheris_fuzz.py [--seconds N]
          [--target decoder|checker|translate|partial|all] [--corpus DIR] [--crashes DIR]
          [--keep-going] [--require] [--verbose] [-- LIBFUZZER_FLAGS...]
      python tests/fuzz/atheris_fuzz.py --target T --reproduce FILE  (one input, uninstrumented)

One target per component. Each splits the fuzzer's input into a body, a list of cut points
and an option byte (atheris.FuzzedDataProvider: the integers come off the end of the input,
the body is what is left at the front), feeds the body in those pieces and all at once, and
requires the very same result:

- ``decoder``: SSEDecoder feed/finish; events (``end`` included) and anomalies; the option
  picks max_line (default, 1, 8 or 64) and max_event (default, 16, 100 or 1000);
- ``checker``: check_chunks against check_bytes; diagnostics, suppressed counts, bytes, frames;
  the option picks max_line, max_event, max_per_code, and memo off for the split run
  (documented to give the very same diagnostics);
- ``translate``: translate_body; the output bytes, joined; the option picks the dialect (or
  auto) and include_usage;
- ``partial``: PartialJSON on the body decoded as UTF-8 (with replacement), cut in characters;
  status, value, pretty print, error and its offset, pending closers, tail; the option picks
  the indent and whether finish() is called.

Only sseconform.errors.SseconformError (and its subclasses) may escape, and then from both runs
alike; anything else is a crash. Cut points may repeat, which feeds empty pieces.

The corpus is seeded at start from recordings/**/*.jsonl (their bodies, cut where the recorded
reads were), recordings/golden/**/*.sse and tests/cases/**/stream.sse; the partial target is
seeded with the data of those bodies' events. Seeds go to --corpus DIR/<target> (default: a
temporary directory, removed afterwards), never into the repository.

Each target runs in its own child process for --seconds (``-max_total_time``); a crashing
input is written to --crashes DIR (default: a new temporary directory) by libFuzzer
(``-artifact_prefix``), and its traceback printed. libFuzzer stops at the first crash; with
--keep-going the harness catches Python failures itself, writes one input per signature
(exception type and innermost sseconform frame) and goes on, so one run lists several bugs
(timeouts and out-of-memory still stop it). One summary line per target. Exit status:
0 when no crash (or timeout, or out-of-memory) input was found, 1 when one was, 2 when the
harness itself failed. Without atheris (Linux x86_64 wheels, CPython 3.11 to 3.13): a one-line
message and exit 0, or 2 with --require.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent.parent
TARGETS = ("decoder", "checker", "translate", "partial")

#: Option byte, cut count, cut points: what the end of an input holds (see split_input).
EVERY_K = 15  # a cut count of 15 means "cut every k bytes" with k read next
MAX_CUTS = EVERY_K - 1


# -- the input format ----------------------------------------------------------------------


def split_input(data: bytes) -> tuple[bytes, list[int], int]:
    """Body, sorted cut points (repeats kept) and the option byte of one fuzzer input."""
    import atheris

    fdp = atheris.FuzzedDataProvider(data)
    opt = fdp.ConsumeIntInRange(0, 255)
    n = fdp.ConsumeIntInRange(0, EVERY_K)
    if n == EVERY_K:
        step = fdp.ConsumeIntInRange(1, 64)
        body = fdp.ConsumeBytes(fdp.remaining_bytes())
        return body, list(range(step, len(body), step)), opt
    raw = [fdp.ConsumeIntInRange(0, 0xFFFF) for _ in range(n)]
    body = fdp.ConsumeBytes(fdp.remaining_bytes())
    return body, sorted(c % (len(body) + 1) for c in raw), opt


def encode_input(body: bytes, cuts: Sequence[int] = (), opt: int = 0) -> bytes:
    """The input that split_input reads back as (body, cuts, opt): for seeds."""
    cuts = [c for c in cuts if c <= 0xFFFF][:MAX_CUTS]
    tail = bytearray()
    for c in reversed(cuts):  # read off the end: opt, n, then each cut high byte first
        tail += bytes((c & 0xFF, (c >> 8) & 0xFF))
    return body + bytes(tail) + bytes((len(cuts), opt))


def pieces(seq: Any, cuts: Sequence[int]) -> list[Any]:
    """``seq`` cut at the sorted points ``cuts`` (a repeated point gives an empty piece)."""
    out = []
    start = 0
    for c in cuts:
        out.append(seq[start:c])
        start = c
    out.append(seq[start:])
    return out


class SplitMismatch(AssertionError):
    """Fed in pieces, a component gave something else than fed all at once."""


def _first_difference(whole: Sequence[Any], split: Sequence[Any]) -> str:
    for i, (a, b) in enumerate(zip(whole, split, strict=False)):
        if a != b:
            return f"item {i}: whole {_short(a)} != pieces {_short(b)}"
    return f"lengths differ: whole {len(whole)}, pieces {len(split)}"


def _short(x: Any, n: int = 300) -> str:
    r = repr(x)
    return r if len(r) <= n else r[: n - 3] + "..."


def _mismatch(what: str, body: bytes, cuts: Sequence[int], opt: int, detail: str) -> None:
    raise SplitMismatch(
        f"{what}: fed in pieces != fed at once ({len(body)} bytes, cuts {list(cuts)}, "
        f"option {opt}): {detail}"
    )


# -- the targets (built after the instrumented imports) ------------------------------------


def _outcome(fn: Callable[[], Any]) -> Any:
    """What fn gives, or the documented error it raises (anything else propagates)."""
    from sseconform.errors import SseconformError

    try:
        return ("ok", fn())
    except SseconformError as exc:
        return ("raised", type(exc).__name__, str(exc))


def _limits() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The max_line and max_event values the options pick from."""
    from sseconform.sse.decoder import DEFAULT_MAX_EVENT, DEFAULT_MAX_LINE

    return (DEFAULT_MAX_LINE, 1, 8, 64), (DEFAULT_MAX_EVENT, 16, 100, 1000)


def _decoder_target() -> Callable[[bytes], None]:
    """SSEDecoder: the same events and anomalies fed whole and in pieces."""
    from sseconform.sse.decoder import SSEDecoder

    outcome = _outcome
    max_lines, max_events = _limits()

    def decode(chunks: list[bytes], limits: dict[str, int]) -> tuple[list[Any], list[Any]]:
        dec = SSEDecoder(**limits)
        events = []
        for chunk in chunks:
            events += dec.feed(chunk)
        events += dec.finish()
        shown = [
            (e.data, e.event, e.id, e.retry, e.frame, e.line, e.offset, e.data_lines, e.end)
            for e in events
        ]
        return shown, dec.anomalies

    def decoder(data: bytes) -> None:
        body, cuts, opt = split_input(data)
        limits = {"max_line": max_lines[opt % 4], "max_event": max_events[(opt >> 2) % 4]}
        whole = outcome(lambda: decode([body], limits))
        split = outcome(lambda: decode(pieces(body, cuts), limits))
        if whole != split:
            if whole[0] == split[0] == "ok":
                (ev_w, an_w), (ev_s, an_s) = whole[1], split[1]
                detail = (
                    "events " + _first_difference(ev_w, ev_s)
                    if ev_w != ev_s
                    else "anomalies " + _first_difference(an_w, an_s)
                )
            else:
                detail = f"{_short(whole)} vs {_short(split)}"
            _mismatch(f"SSEDecoder({limits})", body, cuts, opt, detail)

    return decoder


def _checker_target() -> Callable[[bytes], None]:
    """check: the same result whole and in pieces, with the memo on and off."""
    from sseconform.api import check_bytes, check_chunks
    from sseconform.rules.base import Settings

    outcome = _outcome
    max_lines, max_events = _limits()

    def check_settings(opt: int, *, memo: bool) -> Settings:
        return Settings(
            max_line=max_lines[opt % 4],
            max_per_code=(Settings().max_per_code, 1, 3, 1000)[(opt >> 2) % 4],
            max_event=max_events[(opt >> 5) % 4],
            memo=memo,
        )

    def result_tuple(r: Any) -> tuple[Any, ...]:
        return (r.findings, r.suppressed, r.bytes, r.frames, r.error)

    def checked(chunks: list[bytes], settings: Settings) -> Any:
        return outcome(lambda: result_tuple(check_chunks(chunks, settings)))

    def checker(data: bytes) -> None:
        body, cuts, opt = split_input(data)
        memo_off = bool(opt & 0x10)
        whole_settings = check_settings(opt, memo=True)
        split_settings = check_settings(opt, memo=not memo_off)
        whole = outcome(lambda: result_tuple(check_bytes(body, whole_settings)))
        split = checked(pieces(body, cuts), split_settings)
        if whole != split:
            what = f"check_chunks({whole_settings})"
            if memo_off:  # which of the two differences is it: the split, or the memo?
                same_memo = checked(pieces(body, cuts), whole_settings)
                what += (
                    " [memo=False in pieces; memo=True in pieces agrees with whole]"
                    if same_memo == whole
                    else " [memo=False in pieces; memo=True in pieces differs too]"
                )
            if whole[0] == split[0] == "ok":
                detail = _first_difference(whole[1], split[1])
                if whole[1][0] != split[1][0]:
                    detail = "diagnostics " + _first_difference(whole[1][0], split[1][0])
            else:
                detail = f"{_short(whole)} vs {_short(split)}"
            _mismatch(what, body, cuts, opt, detail)

    return checker


def _translate_target() -> Callable[[bytes], None]:
    """translate: the same bytes out whole and in pieces."""
    from sseconform.translate import DIALECTS, translate_body

    outcome = _outcome

    dialects: tuple[str | None, ...] = (None, *DIALECTS)

    def translated(chunks: list[bytes], dialect: str | None, usage: bool) -> Any:
        return outcome(lambda: b"".join(translate_body(chunks, dialect, include_usage=usage)))

    def translate(data: bytes) -> None:
        body, cuts, opt = split_input(data)
        dialect = dialects[opt % len(dialects)]
        usage = bool((opt // len(dialects)) & 1)
        whole = translated([body], dialect, usage)
        split = translated(pieces(body, cuts), dialect, usage)
        if whole != split:
            what = f"translate_body(dialect={dialect!r}, include_usage={usage})"
            if whole[0] == split[0] == "ok":
                a, b = whole[1], split[1]
                at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
                at = min(len(a), len(b)) if at is None else at
                detail = (
                    f"output differs at byte {at}: whole {a[max(0, at - 40) : at + 80]!r} "
                    f"vs pieces {b[max(0, at - 40) : at + 80]!r}"
                )
            else:
                detail = f"{_short(whole)} vs {_short(split)}"
            _mismatch(what, body, cuts, opt, detail)

    return translate


def _partial_target() -> Callable[[bytes], None]:
    """PartialJSON: the same state and view fed whole and in pieces."""
    import json

    from sseconform.model.partial import PartialJSON

    outcome = _outcome

    def value_text(p: PartialJSON) -> str:
        v = p.value()
        try:
            return json.dumps(v, sort_keys=False)
        except RecursionError:  # the harness cannot print it; compare what can be compared
            return "<too deep to print>"

    def parsed(frags: list[str], indent: int, finish: bool) -> tuple[Any, ...]:
        p = PartialJSON(indent=indent)
        for f in frags:
            p.feed(f)
            # read the view mid-stream too, as `inspect` does between reads
            _ = (p.status, p.pending, p.tail(3, 24))
        if finish:
            p.finish()
        return (
            p.status,
            p.error,
            p.error_offset,
            p.size,
            p.depth,
            p.in_token,
            p.pending,
            p.invalid_text,
            p.line_count(),
            p.pretty(),
            p.tail(4),
            p.tail(3, 16),
            value_text(p),
        )

    fields: tuple[str, ...]
    fields = ("status", "error", "error_offset", "size", "depth", "in_token", "pending")
    fields += ("invalid_text", "line_count", "pretty", "tail(4)", "tail(3, 16)", "value")

    def partial(data: bytes) -> None:
        body, cuts, opt = split_input(data)
        text = body.decode("utf-8", "replace")
        cuts = sorted(c % (len(text) + 1) for c in cuts)
        indent = opt % 4
        finish = not opt & 4
        whole = outcome(lambda: parsed([text], indent, finish))
        split = outcome(lambda: parsed(pieces(text, cuts), indent, finish))
        if whole != split:
            if whole[0] == split[0] == "ok":
                k = next(
                    i for i, (a, b) in enumerate(zip(whole[1], split[1], strict=True)) if a != b
                )
                a, b = whole[1][k], split[1][k]
                detail = f"{fields[k]}: whole {_short(a)} vs pieces {_short(b)}"
            else:
                detail = f"{_short(whole)} vs {_short(split)}"
            what = f"PartialJSON(indent={indent}), finish={finish}, text {text[:200]!r}"
            _mismatch(what, body, cuts, opt, detail)

    return partial


def make_targets() -> dict[str, Callable[[bytes], None]]:
    """Import sseconform (call inside atheris.instrument_imports) and build the targets."""
    return {
        "decoder": _decoder_target(),
        "checker": _checker_target(),
        "translate": _translate_target(),
        "partial": _partial_target(),
    }


# -- seeds -----------------------------------------------------------------------------------


def bodies() -> Iterator[tuple[bytes, list[int]]]:
    """Each bundled body, with the cut points of its recorded reads when it has them."""
    from sseconform.recording.format import RecordingError, RecordingReader

    for path in sorted((ROOT / "recordings").rglob("*.jsonl")):
        try:
            with open(path, "rb") as fp:
                reads = [b for _t, b in RecordingReader(fp, str(path)).reads()]
        except (OSError, RecordingError):
            continue
        cuts, at = [], 0
        for r in reads[:-1]:
            at += len(r)
            cuts.append(at)
        yield b"".join(reads), cuts
    sse = sorted((ROOT / "recordings" / "golden").rglob("*.sse"))
    sse += sorted((ROOT / "tests" / "cases").rglob("stream.sse"))
    for path in sse:
        yield path.read_bytes(), []


def seeds(target: str) -> list[bytes]:
    """The seed inputs of one target, in the input format of split_input."""
    out: dict[bytes, None] = {}
    if target == "partial":
        from sseconform.sse.decoder import decode_all

        for body, _ in bodies():
            for ev in decode_all(body)[0]:
                text = ev.data.encode()
                out[encode_input(text)] = None
                out[encode_input(text, [len(text) // 3, 2 * len(text) // 3])] = None
        return list(out)
    for body, cuts in bodies():
        n = len(body)
        out[encode_input(body)] = None
        if len(cuts) > MAX_CUTS:  # keep recorded reads spread over the body
            cuts = cuts[:: -(-len(cuts) // MAX_CUTS)]
        out[encode_input(body, cuts or [n // 4, n // 2, 3 * n // 4])] = None
    return list(out)


def write_seeds(target: str, corpus: Path) -> int:
    import atheris  # noqa: F401 - split_input below needs it

    corpus.mkdir(parents=True, exist_ok=True)
    n = 0
    for s in seeds(target):
        body, cuts, opt = split_input(s)
        if s != encode_input(body, cuts, opt):  # the seed must read back as written
            raise RuntimeError(f"seed encoding does not round-trip: {s[-40:]!r}")
        name = corpus / hashlib.sha1(s).hexdigest()
        if not name.exists():
            name.write_bytes(s)
        n += 1
    return n


# -- running ---------------------------------------------------------------------------------


def child(target: str, argv0: str, keep_going: str | None, libfuzzer_args: list[str]) -> None:
    """In the child process: instrument sseconform, then hand over to libFuzzer.

    ``argv0`` is the launcher that started this process: libFuzzer runs it again for
    -fork, -merge and -minimize_crash. With ``keep_going`` (an artifact prefix), a failure
    is written there once per signature and fuzzing goes on.
    """
    import atheris

    with atheris.instrument_imports(include=["sseconform"]):
        test_one_input = make_targets()[target]
    if keep_going is not None:
        test_one_input = _keep_going(test_one_input, keep_going)
    atheris.Setup([argv0, *libfuzzer_args], test_one_input)
    atheris.Fuzz()  # libFuzzer exits the process


def signature(exc: BaseException) -> str:
    """What tells one bug from another: the exception type and the innermost project frame
    (for a split mismatch, the component and what differed)."""
    if isinstance(exc, SplitMismatch):
        msg = str(exc)
        what = msg.split("(", 1)[0]
        detail = msg.rsplit("): ", 1)[-1].split(" ", 1)[0]
        return f"SplitMismatch in {what}: {detail}"
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f"{os.sep}sseconform{os.sep}" in f.filename] or frames
    where = f"{Path(ours[-1].filename).name}:{ours[-1].lineno}" if ours else "?"
    return f"{type(exc).__name__} at {where}"


def _keep_going(fn: Callable[[bytes], None], prefix: str) -> Callable[[bytes], None]:
    seen: set[str] = set()

    def run(data: bytes) -> None:
        try:
            fn(data)
        except Exception as exc:
            sig = signature(exc)
            if sig in seen:
                return
            seen.add(sig)
            path = f"{prefix}crash-{hashlib.sha1(data).hexdigest()}"
            Path(path).write_bytes(data)
            text = "".join(traceback.format_exception(exc))
            sys.stderr.write(f"\n === Uncaught Python exception: ===\n{text}")
            sys.stderr.write(f"{KEPT} {sig}; Test unit written to {path}\n")

    return run


KEPT = "sseconform-fuzz: kept going past"
_COV = re.compile(r"^#(\d+)\s+(\w+)\s+cov: (\d+) ft: (\d+) corp: (\d+)")
_STAT = re.compile(r"^stat::(\w+):\s+(\d+)")
_ARTIFACT = re.compile(r"Test unit written to (\S+)")


def launcher(target: str, folder: Path, keep_going: str | None) -> Path:
    """A shell script that starts the child for ``target``: libFuzzer can run it again."""
    path = folder / f"fuzz-{target}"
    script = shlex.quote(str(Path(__file__).resolve()))
    more = f" --keep-going-prefix {shlex.quote(keep_going)}" if keep_going else ""
    path.write_text(
        "#!/bin/sh\n"
        f"exec {shlex.quote(sys.executable)} {script} --child {target}{more} "
        '--argv0 "$0" -- "$@"\n'
    )
    path.chmod(0o755)
    return path


def run_target(
    target: str,
    seconds: int,
    corpus: Path,
    crashes: Path,
    work: Path,
    extra: list[str],
    verbose: bool,
    keep_going: bool,
) -> tuple[str, int]:
    """Fuzz one target in a child process; the summary line and 0, 1 (found) or 2 (broken)."""
    n_seeds = write_seeds(target, corpus)
    prefix = f"{crashes}{os.sep}{target}-"
    flags = [
        f"-max_total_time={seconds}",
        f"-artifact_prefix={prefix}",
        "-timeout=30",
        "-print_final_stats=1",
        *extra,
        str(corpus),
    ]
    cmd = [str(launcher(target, work, prefix if keep_going else None)), *flags]
    started = time.monotonic()
    log: list[str] = []
    proc = subprocess.Popen(
        cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    )
    try:
        assert proc.stdout is not None
        for line in proc.stdout:
            log.append(line)
            if verbose:
                sys.stderr.write(line)
        rc = proc.wait()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    took = time.monotonic() - started

    cov: list[tuple[int, int, int]] = []  # (cov, ft, corpus) at INITED and after
    stats: dict[str, int] = {}
    artifacts: list[str] = []
    for line in log:
        if m := _COV.match(line):
            cov.append((int(m[3]), int(m[4]), int(m[5])))
        elif m := _STAT.match(line):
            stats[m[1]] = int(m[2])
        elif m := _ARTIFACT.search(line):
            artifacts.append(m[1])
    execs = stats.get("number_of_executed_units")
    parts = [f"fuzz {target}: {took:.0f} s"]
    if execs is not None:
        rate = stats.get("average_exec_per_sec") or round(execs / max(took, 1e-9))
        parts.append(f"{execs} execs ({rate}/s)")
    if cov:
        (c0, f0, n0), (c1, f1, n1) = cov[0], cov[-1]
        parts.append(f"cov {c0}->{c1} ft {f0}->{f1} corpus {n0}->{n1} ({n_seeds} seeds)")
    if artifacts:
        parts.append(f"crashes {len(artifacts)}: {' '.join(artifacts)}")
        if not verbose:  # the traceback, and what libFuzzer said about the input
            sys.stderr.write("".join(_crash_report(log)))
        return ", ".join(parts), 1
    parts.append("crashes 0")
    if rc != 0:
        sys.stderr.write("".join(log[-60:]))
        parts.append(f"but the fuzzer exited with status {rc} (harness failure)")
        return ", ".join(parts), 2
    return ", ".join(parts), 0


def _crash_report(log: list[str]) -> list[str]:
    """Each failure's traceback (or libFuzzer's error), up to where its input was written."""
    out: list[str] = []
    inside = False
    for line in log:
        if "Uncaught Python exception" in line or "ERROR: libFuzzer" in line:
            inside = True
        if inside and not _COV.match(line):
            out.append(line)
        if _ARTIFACT.search(line):
            inside = False
    return out or log[-80:]


def reproduce(target: str, path: Path) -> int:
    """Run one input through one target, uninstrumented: the traceback if it fails."""
    fn = make_targets()[target]
    data = path.read_bytes()
    body, cuts, opt = split_input(data)
    print(f"{target}: {len(body)}-byte body, cuts {cuts}, option {opt}; body {body[:200]!r}")
    fn(data)
    print(f"{target}: no failure")
    return 0


def _positive(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=_positive, default=60, help="per target (default 60)")
    ap.add_argument("--target", choices=[*TARGETS, "all"], default="all")
    ap.add_argument("--corpus", type=Path, help="corpus root, kept (default: temporary)")
    ap.add_argument("--crashes", type=Path, help="where crashing inputs go (default: temporary)")
    ap.add_argument("--require", action="store_true", help="fail (2) when atheris is missing")
    ap.add_argument("--verbose", action="store_true", help="show libFuzzer's own output")
    ap.add_argument("--reproduce", type=Path, metavar="FILE", help="run one input and stop")
    ap.add_argument("--child", choices=TARGETS, help=argparse.SUPPRESS)
    ap.add_argument("--argv0", default=sys.argv[0], help=argparse.SUPPRESS)
    ap.add_argument("--keep-going-prefix", help=argparse.SUPPRESS)
    ap.add_argument(
        "--keep-going",
        action="store_true",
        help="go on after a Python failure, keeping one input per distinct failure",
    )
    ap.add_argument("libfuzzer", nargs="*", help="after --: flags passed to libFuzzer")
    args = ap.parse_args(argv)

    if importlib.util.find_spec("atheris") is None:
        print(
            "atheris is not installed (pip install atheris: Linux x86_64 wheels for CPython "
            "3.11-3.13): fuzzing skipped" + ("; --require given" if args.require else "")
        )
        return 2 if args.require else 0
    if args.child:
        child(args.child, args.argv0, args.keep_going_prefix, args.libfuzzer)
        return 2  # not reached: libFuzzer exits
    if args.reproduce:
        if args.target == "all":
            ap.error("--reproduce needs one --target")
        return reproduce(args.target, args.reproduce)

    targets = list(TARGETS) if args.target == "all" else [args.target]
    crashes = args.crashes or Path(tempfile.mkdtemp(prefix="sseconform-fuzz-crashes-"))
    crashes.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="sseconform-fuzz-"))
    corpus_root = args.corpus or work / "corpus"
    status = 0
    try:
        for target in targets:
            line, rc = run_target(
                target,
                args.seconds,
                corpus_root / target,
                crashes,
                work,
                args.libfuzzer,
                args.verbose,
                args.keep_going,
            )
            print(line, flush=True)
            status = max(status, rc)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if status == 1:
        print(f"crashing inputs are in {crashes}; replay one with --target T --reproduce FILE")
    elif args.crashes is None:
        shutil.rmtree(crashes, ignore_errors=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
