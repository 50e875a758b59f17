"""``check`` of a WebSocket session: every session case under tests/cases/responses (a
``session.txt`` beside its ``expected.txt``) made into the recording ``record`` writes and
checked, however its reads are cut; where each finding points; the command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sseconform import check_file
from sseconform.recording.format import RecordingReader
from sseconform.rules.catalog import RULES, Severity
from tests.conftest import CASES, ROOT
from tests.websocket.cases import build

SESSIONS = sorted(p for p in (CASES / "responses").glob("*/*") if (p / "session.txt").is_file())
WS_CODES = sorted(c for c, r in RULES.items() if r.invariant == "websocket")


def expected(case: Path) -> set[str]:
    return {ln.strip() for ln in (case / "expected.txt").read_text().splitlines() if ln.strip()}


def test_there_are_cases_for_every_websocket_rule() -> None:
    assert len(SESSIONS) >= 15
    shown = {p.name.split("-")[0] for p in SESSIONS if p.parent.name == "fail"}
    assert WS_CODES and set(WS_CODES) <= shown
    for case in SESSIONS:
        if case.parent.name == "pass":
            assert expected(case) == set(), case
        else:
            assert case.name.split("-")[0] in expected(case), case


@pytest.mark.parametrize("case", SESSIONS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_session_case_codes(case: Path, tmp_path: Path) -> None:
    got = check_file(build(case / "session.txt", tmp_path / "s.jsonl"), grammar="responses")
    assert got.error is None
    assert got.codes == expected(case), [str(f) for f in got.findings]


def resplit(src: Path, dst: Path, size: int) -> None:
    """The same session with the server's bytes re-cut into reads of ``size`` bytes (the
    frames cross reads, as a socket's reads cut them)."""
    with open(src, "rb") as fp:
        reader = RecordingReader(fp, str(src), websocket=True)
        lines = [json.dumps(reader.header), json.dumps({"response": _head(reader)})]
        pending = b""
        t_last = 0.0
        for t, item in reader.session():
            if isinstance(item, bytes):
                pending += item
                t_last = t
                continue
            lines += _reads(pending, t_last, size)
            pending = b""
            lines.append(json.dumps({"t": t, "sent": {"op": item.op, "text": item.text}}))
        lines += _reads(pending, t_last, size)
        end = reader.end
        assert end is not None
        tail: dict[str, object] = {"complete": end.complete, "reason": end.reason, "t": end.t}
        if end.close is not None:
            tail["close"] = {"by": end.close.by, "code": end.close.code}
        lines.append(json.dumps({"end": tail}))
    dst.write_text("\n".join(lines) + "\n")


def _head(reader: RecordingReader) -> dict[str, object]:
    r = reader.response
    assert r is not None
    return {"status": r.status, "reason": r.reason, "headers": [list(h) for h in r.headers]}


def _reads(data: bytes, t: float, size: int) -> list[str]:
    import base64

    return [
        json.dumps({"t": t, "b64": base64.b64encode(data[i : i + size]).decode()})
        for i in range(0, len(data), size)
    ]


@pytest.mark.parametrize("size", [1, 3, 64])
def test_findings_do_not_depend_on_how_the_reads_were_cut(size: int, tmp_path: Path) -> None:
    for case in SESSIONS:
        whole = check_file(build(case / "session.txt", tmp_path / "w.jsonl"), grammar="responses")
        resplit(tmp_path / "w.jsonl", tmp_path / "r.jsonl", size)
        cut = check_file(tmp_path / "r.jsonl", grammar="responses")
        assert [(f.code, f.frame, f.offset) for f in cut.findings] == [
            (f.code, f.frame, f.offset) for f in whole.findings
        ], case


def test_a_finding_names_the_message_and_the_recording_line(tmp_path: Path) -> None:
    case = CASES / "responses" / "fail" / "S081-binary-message"
    path = build(case / "session.txt", tmp_path / "s.jsonl")
    (f,) = check_file(path, grammar="responses").findings
    lines = path.read_text().splitlines()
    # message 6: the client's create is 1, the server's events 2..5 come before it
    assert f.frame == 6 and f.line == 8  # header, 101, sent, 4 events, then this read
    assert json.loads(lines[f.line - 1])["b64"]  # the read holding the binary frame
    assert f.severity is Severity.ERROR


def cli(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sseconform", *map(str, args)],
        capture_output=True, text=True, cwd=cwd, timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "NO_COLOR": "1"},
    )  # fmt: skip


def test_the_command_line_checks_a_session(tmp_path: Path) -> None:
    good = build(CASES / "responses/pass/websocket-chained-turns/session.txt", tmp_path / "g.jsonl")
    bad = build(CASES / "responses/fail/S082-close-1011-mid-response/session.txt",
                tmp_path / "b.jsonl")  # fmt: skip
    ok = cli("check", good, cwd=tmp_path)
    assert ok.returncode == 0, ok.stderr + ok.stdout
    failed = cli("check", bad, "--format", "json", cwd=tmp_path)
    assert failed.returncode == 1, failed.stderr
    report = json.loads(failed.stdout)
    codes = {f["code"] for r in report["files"] for f in r["findings"]}
    assert "S082" in codes and "S040" in codes
    text = cli("check", bad, cwd=tmp_path)
    assert (
        "b.jsonl:9: S082 error ws-closed-mid-response [websocket]: a Close 1011 after"
        in text.stdout
    )
    assert "(message 6, byte 960)" in text.stdout  # S040, at the last event's message
    # a grammar a session cannot carry is refused with the file's name, exit 2
    wrong = cli("check", "-g", "anthropic", bad, cwd=tmp_path)
    assert wrong.returncode == 2 and "b.jsonl" in wrong.stderr and "Traceback" not in wrong.stderr


def test_inspect_shows_a_turn_of_a_session(tmp_path: Path) -> None:
    """``inspect`` plays one turn of a session (``--turn``, from 1) as the stream it would be
    over HTTP; a turn the session does not have is refused with the file, exit 2."""
    path = build(CASES / "responses/pass/websocket-chained-turns/session.txt", tmp_path / "s.jsonl")
    second = cli("inspect", "--no-live", "--speed", "0", "--turn", "2", path, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "response.completed" in second.stdout and "dialect responses" in second.stdout
    assert "Again" in second.stdout and "'Hi'" not in second.stdout
    missing = cli("inspect", "--no-live", "--turn", "3", path, cwd=tmp_path)
    assert missing.returncode == 2
    assert "turn 3: the session has 2 turn(s)" in missing.stderr and "s.jsonl" in missing.stderr
