"""Serve every case of a grammar to every client of it and record what each client did.

    python -m tests.interop.matrix.run [--grammar G ...] [--clients NAME ...] [--heavy]

writes ``tests/interop/matrix/<grammar>.json``: per client, its name and pinned version and, per
case, the outcome (``ok``, ``wrong-content``, ``error``; see ``outcome.py``) with a one-line
detail. Clients that were not run this time (heavy ones without ``--heavy``, others left out by
``--clients``) keep their entries as they were. Keys are sorted, so a refresh diffs well.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from tests.interop.matrix.cases import GRAMMARS, Case, discover
from tests.interop.matrix.clients import Client, Job, clients
from tests.interop.matrix.outcome import classify
from tests.interop.matrix.reading import correct, expectations, read
from tests.interop.matrix.server import MockServer

HERE = Path(__file__).resolve().parent
REFRESH = "python -m tests.interop.matrix.run"

#: A plain text answer in each grammar, for the requests a CLI sends after the case's own
#: (tool results going back): it ends the CLI's turn without serving the case twice.
FOLLOWUPS = {
    "chat": b'data: {"id":"chatcmpl-followup","object":"chat.completion.chunk","created":'
    b'1700000000,"model":"gpt-test","choices":[{"index":0,"delta":{"role":"assistant",'
    b'"content":"done"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
    "anthropic": b'event: message_start\ndata: {"type":"message_start","message":{"id":'
    b'"msg_followup","type":"message","role":"assistant","model":"claude-test","content":[],'
    b'"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":1}}}'
    b'\n\nevent: content_block_start\ndata: {"type":"content_block_start","index":0,'
    b'"content_block":{"type":"text","text":""}}\n\nevent: content_block_delta\ndata: '
    b'{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"done"}}\n\n'
    b'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n'
    b'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn",'
    b'"stop_sequence":null},"usage":{"output_tokens":1}}\n\n'
    b'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    "responses": b'event: response.created\ndata: {"type":"response.created","sequence_number":0,'
    b'"response":{"id":"resp_followup","object":"response","created_at":1700000000,"status":'
    b'"in_progress","model":"gpt-test","output":[]}}\n\nevent: response.output_item.added\ndata: '
    b'{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":'
    b'"msg_followup","type":"message","status":"in_progress","role":"assistant","content":[]}}'
    b'\n\nevent: response.output_text.delta\ndata: {"type":"response.output_text.delta",'
    b'"sequence_number":2,"item_id":"msg_followup","output_index":0,"content_index":0,'
    b'"delta":"done"}\n\nevent: response.output_item.done\ndata: {"type":'
    b'"response.output_item.done","sequence_number":3,"output_index":0,"item":{"id":'
    b'"msg_followup","type":"message","status":"completed","role":"assistant","content":[{'
    b'"type":"output_text","text":"done","annotations":[]}]}}\n\nevent: response.completed\n'
    b'data: {"type":"response.completed","sequence_number":4,"response":{"id":"resp_followup",'
    b'"object":"response","created_at":1700000000,"status":"completed","model":"gpt-test",'
    b'"output":[{"id":"msg_followup","type":"message","status":"completed","role":"assistant",'
    b'"content":[{"type":"output_text","text":"done","annotations":[]}]}],"usage":{'
    b'"input_tokens":1,"output_tokens":1,"total_tokens":2}}}\n\n',
}
#: Open Responses streams end with ``data: [DONE]`` after the terminal event.
FOLLOWUPS["open-responses"] = FOLLOWUPS["responses"] + b"data: [DONE]\n\n"
FOLLOWUPS["gemini"] = (
    b'data: {"candidates":[{"content":{"parts":[{"text":"done"}],"role":"model"},'
    b'"finishReason":"STOP","index":0}],"modelVersion":"gemini-test"}\r\n\r\n'
)


def matrix_path(grammar: str) -> Path:
    return HERE / f"{grammar}.json"


def load(grammar: str) -> dict[str, Any]:
    """A grammar's committed matrix, or an empty one."""
    path = matrix_path(grammar)
    if not path.is_file():
        return {"grammar": grammar, "clients": {}}
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def digest(case: Case, fix: dict[str, Any]) -> str:
    """What a case's outcome depends on besides the client: its bytes and its corrections (not
    its ``known`` list, which is for the tests). Kept beside each outcome, so a test can tell
    which committed rows a changed case has made stale without running every case."""
    meaning = {k: v for k, v in fix.items() if k != "known"}
    h = hashlib.sha256(case.body)
    h.update(json.dumps(meaning, sort_keys=True).encode())
    return h.hexdigest()[:16]


def measure(
    grammar: str,
    chosen: Sequence[Client],
    root: Path | None = None,
    log: bool = False,
    only: frozenset[str] | None = None,
) -> tuple[dict[str, Any], list[str]]:
    """Each available client's entry (``{"client", "cases"}``) by name, and the clients that
    could not run with how to install them. ``only``: the case ids to run (None: each client's
    own set)."""
    cases = discover(grammar, root)
    fixes = expectations(grammar)
    entries: dict[str, Any] = {}
    missing: list[str] = []
    with MockServer() as server:
        for n, client in enumerate(chosen):
            version = client.version()
            if version is None:
                missing.append(f"{client.name} ({grammar}): not installed; {client.missing}")
                continue
            jobs = []
            sums: dict[str, str] = {}
            for case in cases:
                if root is None and client.cases is not None and case.id not in client.cases:
                    continue  # a client run over a subset of its grammar's cases (CI time)
                if only is not None and case.id not in only:
                    continue
                meant = read(grammar, case.body)
                meant[0] = correct(meant.get(0) or meant[min(meant)], fixes.get(case.id, {}))
                followup = FOLLOWUPS[grammar] if client.followup else None
                url = server.add(f"{n}.{case.key}", case.body, followup)
                jobs.append(Job(case, url, meant))
                sums[case.id] = digest(case, fixes.get(case.id, {}))
            started = time.monotonic()
            results = client.run(jobs, server) if jobs else {}
            took = time.monotonic() - started
            print(
                f"{grammar}: {client.name} {version}: {len(jobs)} cases in {took:.1f}s",
                file=sys.stderr,
            )
            out: dict[str, Any] = {}
            for job in jobs:
                got = results[job.case.id]
                outcome, detail = classify(
                    job.meant, got, choices=client.choices, fields=client.fields
                )
                entry: dict[str, Any] = {
                    "outcome": outcome,
                    "detail": detail,
                    "sha": sums[job.case.id],
                }
                seen = server.requests(f"{n}.{job.case.key}")
                lines = [s.line() for s in seen]
                if log:
                    for line in lines:
                        print(f"  {client.name} {job.case.id}: {line}", file=sys.stderr)
                if len(seen) != 1 or not seen[0].stream:
                    entry["requests"] = lines
                out[job.case.id] = entry
            entries[client.name] = {
                "client": {"name": client.name, "version": version},
                "cases": out,
            }
    return entries, missing


def write(grammar: str, entries: dict[str, Any]) -> Path:
    """Merge fresh entries into the grammar's file (others kept) and write it sorted."""
    data = load(grammar)
    data["grammar"] = grammar
    data["method"] = (
        "tests/interop/matrix: each case's stream.sse served from 127.0.0.1 to each client; "
        "outcome per tests/interop/matrix/outcome.py against the reference reading of "
        "tests/interop/matrix/reading.py (corrections in expect/)"
    )
    data.setdefault("clients", {}).update(entries)
    path = matrix_path(grammar)
    path.write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    return path


def counts(entry: dict[str, Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for case in entry["cases"].values():
        out[case["outcome"]] = out.get(case["outcome"], 0) + 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=REFRESH, description=__doc__.split("\n\n")[0])
    parser.add_argument("--grammar", action="append", choices=GRAMMARS, help="default: all")
    parser.add_argument("--clients", nargs="+", metavar="NAME", help="default: all")
    parser.add_argument("--heavy", action="store_true", help="also the heavy CLIs")
    parser.add_argument("--log", action="store_true", help="print every request the mock saw")
    parser.add_argument("--require", action="store_true", help="fail if a client is missing")
    parser.add_argument(
        "--cases", type=Path, metavar="DIR", help="a folder with pass/ and fail/ (one grammar)"
    )
    parser.add_argument("--dry-run", action="store_true", help="print, do not write")
    args = parser.parse_args(argv)
    grammars = args.grammar or list(GRAMMARS)
    status = 0
    for grammar in grammars:
        chosen = [
            c for c in clients(grammar, args.heavy) if not args.clients or c.name in args.clients
        ]
        entries, missing = measure(grammar, chosen, args.cases, args.log)
        for line in missing:
            print(line, file=sys.stderr)
            status = 1 if args.require else status
        for name, entry in entries.items():
            tally = ", ".join(f"{k} {v}" for k, v in sorted(counts(entry).items()))
            print(f"{grammar}: {name} {entry['client']['version']}: {tally or 'no cases'}")
        if args.dry_run:
            print(json.dumps(entries, indent=2, sort_keys=True, ensure_ascii=False))
        elif entries:
            print(f"wrote {write(grammar, entries).relative_to(Path.cwd())}")
    return status


if __name__ == "__main__":
    sys.exit(main())
