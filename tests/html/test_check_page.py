"""``check --format html``: the same findings as the JSON report, each with the bytes of the
event it points at (read back from the file, split any way) and its rule's docs; nothing
from the stream becomes markup."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sseconform.api import event_bytes
from sseconform.html.page import SCRIPT
from sseconform.recording.format import RecordingReader, write_recording
from tests.cli.helpers import run_cli
from tests.html.dom import parse

ROOT = Path(__file__).resolve().parents[2]
BUGGY = ROOT / "recordings" / "gateway-bugs" / "anthropic-tool-call.jsonl"
CLEAN = ROOT / "recordings" / "chat" / "text-usage.jsonl"


def test_the_page_has_every_finding_with_its_event(tmp_path: Path) -> None:
    page = tmp_path / "check.html"
    run = run_cli("check", CLEAN, BUGGY, "--format", "html", "-o", page, cwd=tmp_path)
    assert run.code == 1, run.both
    js = run_cli("check", CLEAN, BUGGY, "--format", "json", cwd=tmp_path)
    report = json.loads(js.out)
    dom = parse(page.read_text(encoding="utf-8"))
    cells = {n.attrs["data-file"]: n.attrs["data-verdict"] for n in dom.find_all("td", "v")}
    assert cells == {str(CLEAN): "pass", str(BUGGY): "fail"}
    findings = dom.find_all("li", "finding")
    expected = [d["code"] for f in report["files"] for d in f["findings"]]
    assert [n.attrs["data-key"] for n in findings] == expected
    with open(BUGGY, "rb") as fp:
        body = b"".join(data for _, data in RecordingReader(fp, str(BUGGY)).reads())
    first = findings[0]
    shown = first.find("pre", "bytes").text
    offset = report["files"][1]["findings"][0]["offset"]
    assert body[offset:].decode().startswith(shown.rstrip("\n"))
    # each finding links to its rule's docs, given once at the end of the page
    link = first.find("a").attrs["href"]
    assert link == f"#rule-{expected[0]}"
    docs = dom.find("section", id="rules").find_all("details", "doc")
    assert [d.attrs["id"] for d in docs] == [f"rule-{c}" for c in dict.fromkeys(expected)]
    assert "What it does." in docs[0].text


def test_a_hostile_stream_stays_text(tmp_path: Path) -> None:
    raw = tmp_path / "evil.sse"
    raw.write_bytes(
        b'data: {"choices":[{"index":0,"delta":{"content":"x"}}]}</textarea><script>alert(1)'
        b"</script>\x1b[2J\n\ndata: <img src=x onerror=alert(2)> javascript:alert(3)\n\n"
    )
    page = tmp_path / "check.html"
    run = run_cli("check", raw, "--format", "html", "-o", page, cwd=tmp_path)
    assert run.code == 1
    text = page.read_text(encoding="utf-8")
    dom = parse(text)
    assert [s.text for s in dom.find_all("script")] == [SCRIPT]
    assert not dom.find_all("img") and not dom.find_all("textarea")
    assert "\x1b" not in text and "\\x1b[2J" in dom.text
    assert "onerror=alert(2)" in dom.find("pre", "bytes").text or "onerror" in dom.text


@pytest.mark.parametrize("size", [1, 2, 7, 4096])
def test_event_bytes_in_a_recording_split_anywhere(tmp_path: Path, size: int) -> None:
    body = (
        'data: {"a":"caf\u00e9"}\r\n\r\nevent: x\ndata: 2\n\ndata: three\r\rdata: [DONE]\n\n'
    ).encode()
    rec = tmp_path / "r.jsonl"
    reads = [(i / 1000, body[i : i + size]) for i in range(0, len(body), size)]
    write_recording(str(rec), reads=reads)
    raw = tmp_path / "r.sse"
    raw.write_bytes(body)
    starts = [0, body.index(b"event:"), body.index(b"data: three"), body.index(b"data: [DONE]")]
    for path in (rec, raw):
        got = event_bytes(str(path), starts)
        assert got == {
            starts[0]: 'data: {"a":"caf\u00e9"}\r\n\r\n'.encode(),
            starts[1]: b"event: x\ndata: 2\n\n",
            starts[2]: b"data: three\r\r",
            starts[3]: b"data: [DONE]\n\n",
        }
    assert event_bytes(str(raw), [0], limit=5) == {0: b"data:"}
    assert event_bytes(str(tmp_path / "missing"), [0]) == {}
