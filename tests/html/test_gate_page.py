"""The gate's HTML page as a pure function of results: everything from the wire escaped (no
markup, script, link or control character from a stream reaches the page as such), known
deviations apart from new failures, the first difference marked, and a reviewed snapshot of
the body for a small run."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path

from sseconform.findings import Finding
from sseconform.gate.evidence import Evidence, first_difference, side_of
from sseconform.gate.result import ScenarioResult, SuiteResult
from sseconform.html.page import SCRIPT, visible
from sseconform.rules.catalog import Severity
from tests import snapshot
from tests.html.dom import Node, parse

SNAPSHOTS = Path(__file__).parent / "snapshots"
HOSTILE = (
    '<script>alert(1)</script></textarea><a href="javascript:alert(2)">x</a>'
    '\x1b[31m\u2028"><img src=x onerror=alert(3)><!-- -->]]>'
)


def _side(text: str, args: str = "") -> list[dict[str, object]]:
    calls = [{"id": "c1", "name": HOSTILE, "arguments": {"value": args, "cut": 0}}] if args else []
    return [
        {
            "index": 0,
            "text": {"value": text, "cut": 0},
            "reasoning": {"value": "", "cut": 0},
            "refusal": {"value": "", "cut": 0},
            "calls": calls,
            "finish": "stop",
        }
    ]


def _marks(n: int, t0: float, label: str) -> list[dict[str, object]]:
    return [{"t": t0 + i * 0.05, "label": label, "content": i > 0, "request": 1} for i in range(n)]


def _result() -> SuiteResult:
    lost = Finding("lost", f"text: chars missing {HOSTILE}", source="diff", frame=3,
                   offset=120, excerpt=HOSTILE, field="text")  # fmt: skip
    check = Finding("E003", f"truncated {HOSTILE}", frame=4, offset=200)
    known = Finding("error-then-done", "no error frame", source="expect", frame=4, offset=200,
                    known=True)  # fmt: skip
    up, gw = _side("The sky is blue" + HOSTILE, '{"a": 1}'), _side("The sky blue" + HOSTILE)
    ev = Evidence(
        upstream=up,
        gateway=gw,
        upstream_extra={"error": {"message": HOSTILE}},
        first=first_difference([lost], up, gw),
        upstream_marks=_marks(4, 0.1, HOSTILE),
        gateway_marks=_marks(3, 0.12, "delta content"),
        faults=[{"t": 0.2, "fault": HOSTILE, "request": 1}],
        upstream_events=4,
        gateway_events=3,
        events={120: f"data: {HOSTILE}\n\n"},
    )
    ev.requests = {
        "client": {"value": '{"messages": "' + HOSTILE + '"}', "cut": 0},
        "upstream": {"value": '{"messages": []}', "cut": 0},
        "path": "/v1/messages",
    }
    refused = Evidence(
        turn=2,
        requests={"client": {"value": '{"signature": "EuSg"}', "cut": 0}, "upstream": None},
        upstream_extra={"body": f"refused: Invalid `signature` {HOSTILE}"},
        gateway_extra={"body": '{"error": {"type": "invalid_request_error"}}'},
    )
    failing = ScenarioResult(
        f"anthropic/{HOSTILE}", "content", 200, "out/x.jsonl", 1, 0.5,
        [lost, check, known], note=HOSTILE, dialect="anthropic",
        upstream_log=[HOSTILE], evidence=ev, later_evidence=[refused],
    )  # fmt: skip
    passing = ScenarioResult("openai/text", "content", 200, "out/y.jsonl", 1, 0.3,
                             dialect="openai")  # fmt: skip
    only_known = ScenarioResult("openai/stall", "content", 200, "out/z.jsonl", 1, 0.3,
                                [known], dialect="openai")  # fmt: skip
    na = ScenarioResult("gemini/text", "-", None, "", 0, 0.0, note="cannot route gemini",
                        dialect="gemini", applicable=False)  # fmt: skip
    return SuiteResult("builtin:all", "http://127.0.0.1:9", "http://127.0.0.1:8",
                       [failing, passing, only_known, na])  # fmt: skip


def _render() -> str:
    from sseconform.html.gate import render

    return render([_result()])


def test_nothing_from_the_wire_becomes_markup() -> None:
    page = _render()
    dom = parse(page)
    scripts = dom.find_all("script")
    assert [s.text for s in scripts] == [SCRIPT]
    assert not dom.find_all("img") and not dom.find_all("textarea")
    for n in dom.iter():
        assert not any(k.startswith("on") for k in n.attrs), n
        if n.tag == "a":
            assert n.attrs["href"].startswith("#"), n.attrs
    assert "javascript:alert(2)" in dom.text  # shown, as text
    assert "\x1b" not in page and "\u2028" not in page
    assert "\\x1b[31m" in dom.text and "\\u2028" in dom.text
    assert "<script>alert(1)" not in page and "<!-- -->" not in page


def test_the_page_allows_only_its_own_script_and_no_network() -> None:
    dom = parse(_render())
    csp = dom.find("meta", http_equiv="Content-Security-Policy").attrs["content"]
    digest = base64.b64encode(hashlib.sha256(SCRIPT.encode()).digest()).decode()
    assert "default-src 'none'" in csp
    assert f"script-src 'sha256-{digest}'" in csp
    assert not dom.find_all("link") and not dom.find_all("iframe")


def test_known_deviations_are_apart_from_new_failures() -> None:
    dom = parse(_render())
    failures = dom.find("section", id="failures").text
    known = dom.find("section", id="known").text
    assert "anthropic/" in failures and "openai/stall" not in failures
    assert "openai/stall" in known and "expect:error-then-done" in known
    cells = {n.attrs["data-scenario"]: n.attrs["data-verdict"] for n in dom.find_all("td", "v")}
    assert cells["openai/stall"] == "known" and cells["openai/text"] == "pass"
    assert cells["gemini/text"] == "not-applicable"
    assert cells[f"anthropic/{visible(HOSTILE)}"] == "fail"  # controls shown escaped


def _mark(section: Node, side: str) -> tuple[str, Node]:
    field = section.find("div", f"side {side}".split()[1]).find("div", "field", data_field="text")
    pre = field.find("pre")
    before = pre.children[0]
    assert isinstance(before, str)
    return before, pre.find("mark", "first-diff")


def test_the_first_difference_is_marked_where_the_texts_part() -> None:
    dom = parse(_render())
    section = next(
        s for s in dom.find_all("section", "scenario") if s.attrs["data-verdict"] == "fail"
    )
    for side in ("up", "gw"):
        before, mark = _mark(section, side)
        assert before == "The sky "
        assert mark.attrs["data-char"] == "8"
    assert _mark(section, "up")[1].text == "i" and _mark(section, "gw")[1].text == "b"


def test_the_timeline_has_a_mark_per_event_and_the_fault() -> None:
    dom = parse(_render())
    svg = dom.find("svg", "timeline")
    assert len(svg.find_all("line", "up")) == 4 + 1  # every event, and time to first token
    assert len([n for n in svg.find_all("line") if {"ev", "up"} <= n.classes]) == 4
    assert len([n for n in svg.find_all("line") if {"ev", "gw"} <= n.classes]) == 3
    assert len(svg.find_all("path", "fault")) == 1


def test_content_side_of_a_stream() -> None:
    from sseconform.gate.content import content_of

    body = (
        b'data: {"choices":[{"index":0,"delta":{"content":"hi"}}]}\n\n'
        b'data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c","type":'
        b'"function","function":{"name":"f","arguments":"{\\"x\\": [1,2]}"}}]},'
        b'"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n'
    )
    choices, extra = side_of(content_of([body], "openai"))
    assert choices is not None
    assert choices[0]["text"]["value"] == "hi"
    assert choices[0]["calls"][0]["arguments"]["value"] == '{\n  "x": [\n    1,\n    2\n  ]\n}'
    assert choices[0]["finish"] == "tool_calls" and extra == {"finish_field": "finish_reason"}


def test_arguments_that_are_not_json_are_compared_as_sent() -> None:
    """A gateway that joins two calls' arguments into one (``{..}{..}``, not JSON): both sides
    of that call are shown as sent, and they part where the second object starts, not where
    the upstream's indentation would."""
    from sseconform.gate.content import content_of
    from sseconform.gate.diff import compare
    from sseconform.gate.evidence import collect

    def call(i: int, args: str, head: bool = True) -> bytes:
        fn = {"name": "f", "arguments": args} if head else {"arguments": args}
        tc = {"index": i, **({"id": f"c{i}", "type": "function"} if head else {}), "function": fn}
        chunk = {"choices": [{"index": 0, "delta": {"tool_calls": [tc]}}]}
        return b"data: " + json.dumps(chunk).encode() + b"\n\n"

    end = b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}\n\n'
    up = call(0, '{"city": "Paris"}') + call(1, '{"city": "Tokyo"}') + end + b"data: [DONE]\n\n"
    gw = call(0, '{"city": "Paris"}') + call(0, '{"city": "Tokyo"}', False) + end
    gw += b"data: [DONE]\n\n"
    a, b = content_of([up], "openai"), content_of([gw], "openai")
    findings = [Finding(d.kind, d.message, source="diff", field=d.field) for d in compare(a, b)]
    ev = collect(findings=findings, upstream=a, gateway=b, body=b"", reads=[], served=[], t0=0.0)
    assert ev.upstream is not None and ev.gateway is not None
    assert ev.upstream[0]["calls"][0]["arguments"]["value"] == '{"city": "Paris"}'
    assert ev.upstream[0]["calls"][1]["arguments"]["value"].startswith("{\n")  # JSON both sides
    assert ev.gateway[0]["calls"][0]["arguments"]["value"] == '{"city": "Paris"}{"city": "Tokyo"}'
    assert ev.first is not None and ev.first["call"] == 0
    assert ev.first["char"] == len('{"city": "Paris"}')


def test_body_snapshot() -> None:
    page = _render()
    body = page[page.index("<body>") : page.index("<script>")]
    snapshot.compare(
        SNAPSHOTS / "gate-page-body.html",
        re.sub(r"sseconform \d[\w.]*", "sseconform VERSION", body),
    )


def test_failures_come_first_and_say_what_failed() -> None:
    """The cards a reader came for first (failures, then known deviations, passes, n/a
    last), and the list of new failures quotes each one's first message, not codes alone."""
    dom = parse(_render())
    order = [s.attrs["data-verdict"] for s in dom.find_all("section", "scenario")]
    assert order == ["fail", "known", "pass", "not-applicable"]
    said = dom.find("section", id="failures").find("span", "said").text
    assert said.startswith("text: chars missing <script>")


def test_a_conversation_shows_its_turns_side_by_side() -> None:
    """A column per turn, each with both requests; a turn the gateway never forwarded says
    so, and the upstream's refusal is shown as it answered."""
    dom = parse(_render())
    turns = dom.find("div", "turns").find_all("div", "turn")
    assert [t.attrs["data-turn"] for t in turns] == ["1", "2"]
    first, second = turns
    assert "<script>alert(1)" in first.find("div", "request", data_request="client").text
    assert "(/v1/messages)" in first.find("div", "request", data_request="upstream").text
    assert (
        "nothing reached the upstream"
        in second.find("div", "request", data_request="upstream").text
    )
    assert "refused: Invalid `signature`" in second.find("div", "up").text


def test_requests_that_differ_are_open_with_their_differences_listed() -> None:
    """A one-turn scenario whose upstream request lost or changed what the client asked:
    the requests open, each difference listed above them with its severity (hostile text
    escaped); a scenario whose requests mean the same keeps them folded."""
    from sseconform.html.gate import render

    ev = Evidence(upstream=_side("hi"), gateway=_side("hi"))
    ev.requests = {
        "client": {"value": '{"max_tokens": 777}', "cut": 0},
        "upstream": {"value": '{"max_tokens": 4096}', "cut": 0},
        "path": "/v1/messages",
    }
    changed = Finding("changed", "request.max_output_tokens: the client asked for max_tokens "
                      f"777; the upstream got max_tokens 4096 {HOSTILE}", source="request",
                      field="max_output_tokens")  # fmt: skip
    lost = Finding("lost", "request.stop: the client asked for stop_sequences", source="request",
                   field="stop", severity=Severity.WARNING)  # fmt: skip
    differ = ScenarioResult("anthropic/max-tokens", "content", 200, "out/a.jsonl", 1, 0.2,
                            [changed, lost], dialect="anthropic", evidence=ev)  # fmt: skip
    same = ScenarioResult("anthropic/text", "content", 200, "out/b.jsonl", 1, 0.2,
                          dialect="anthropic", evidence=ev)  # fmt: skip
    page = render([SuiteResult("s", "http://127.0.0.1:9", "http://127.0.0.1:8", [differ, same])])
    assert "<script>alert(1)" not in page
    dom = parse(page)
    first, second = dom.find_all("details", "requests")
    assert "open" in first.attrs and "open" not in second.attrs
    assert "requests (2 differences)" in first.find("summary").text
    assert "requests (the same meaning)" in second.find("summary").text
    items = first.find("ul", "request-diffs").find_all("li")
    assert [li.attrs["class"] for li in items] == ["sev-error", "sev-warning"]
    assert "request:changed" in items[0].text and "max_tokens 4096" in items[0].text
