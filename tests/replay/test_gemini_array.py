"""Gemini without ``alt=sse``: the same recordings answered as Google's streamed JSON array.

Google answers ``:streamGenerateContent`` without ``alt=sse`` with ``application/json``: ``[``,
then each GenerateContentResponse pretty-printed (two-space indent), ``\\n,\\r\\n`` between two,
and ``\\n]`` at the end; a mid-stream error is one more element, ``{"error": {...}}``, then the
``]``. The plan is checked byte for byte (no sockets), then end to end with httpx on 127.0.0.1.
google-genai always asks for ``alt=sse`` (so it reads the SSE path, checked in
test_redaction.py); the array is read here with ``json.loads`` after the end.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sseconform import providers
from sseconform.replay.faults import Faults, parse_faults, parse_split
from sseconform.replay.plan import (
    ABORT,
    ARRAY_CONTENT_TYPE,
    END,
    Loaded,
    fault_problems,
    indent_json,
    make_plan,
)
from sseconform.replay.served import Served
from sseconform.replay.server import ReplayServer
from sseconform.sse import decode_all
from tests.replay.conftest import GEMINI, LOADED, client, fetch_raw, headers_for, rec, serving

GEMINIS = sorted(name for name, r in LOADED.items() if r.dialect == "gemini")
PATH = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
SEP = b"\n,\r\n"
ERROR_ELEMENT = (
    b'{\n  "error": {\n    "code": 503,\n    "message": "The model is overloaded.",\n'
    b'    "status": "UNAVAILABLE"\n  }\n}'
)


def payloads(name: str) -> list[str]:
    events, _ = decode_all(rec(name).body)
    return [e.data for e in events]


def elements(name: str) -> list[bytes]:
    """Each event's data as Google pretty-prints it in the array."""
    return [indent_json(d).encode() for d in payloads(name)]


def complete_at(r: Loaded) -> list[float]:
    """When each event was complete: the time of the read holding its last byte."""
    events, _ = decode_all(r.body)
    out = []
    for ev in events:
        pos = 0
        for t, data in r.reads:
            pos += len(data)
            if pos >= ev.end:
                out.append(t)
                break
    return out


# -- the pretty print ------------------------------------------------------------------------


def test_indent_json_is_googles_pretty_print() -> None:
    text = (
        '{"candidates": [{"content": {"parts": [{"text": "a \\u003c b, \\"c\\": [d]"}],'
        '"role": "model"},"index": 0}],"usageMetadata": {"promptTokenCount": 11,'
        '"promptTokensDetails": []},"x": {},"y": [1, -2.5e3, true, null]}'
    )
    assert indent_json(text) == (
        "{\n"
        '  "candidates": [\n'
        "    {\n"
        '      "content": {\n'
        '        "parts": [\n'
        "          {\n"
        '            "text": "a \\u003c b, \\"c\\": [d]"\n'  # the literal, escapes and all
        "          }\n"
        "        ],\n"
        '        "role": "model"\n'
        "      },\n"
        '      "index": 0\n'
        "    }\n"
        "  ],\n"
        '  "usageMetadata": {\n'
        '    "promptTokenCount": 11,\n'
        '    "promptTokensDetails": []\n'
        "  },\n"
        '  "x": {},\n'
        '  "y": [\n'
        "    1,\n"
        "    -2.5e3,\n"
        "    true,\n"
        "    null\n"
        "  ]\n"
        "}"
    )
    assert indent_json("not json {") == "not json {"


@pytest.mark.parametrize("name", GEMINIS)
def test_indent_json_matches_a_two_space_json_dump(name: str) -> None:
    """On the real payloads, the token-wise re-indent is what a JSON dump with indent 2 writes
    (where the payload has no escapes a dump would spell differently)."""
    for data in payloads(name):
        if "\\u" in data:
            continue
        assert indent_json(data) == json.dumps(json.loads(data), indent=2, ensure_ascii=False)


# -- the plan, byte for byte -------------------------------------------------------------------


def test_the_array_plan_byte_for_byte() -> None:
    r = rec(GEMINI)
    e = elements(GEMINI)
    assert len(e) == 3
    plan = make_plan(r, array=True)
    assert plan.body == b"[" + e[0] + SEP + e[1] + SEP + e[2] + b"\n]"
    # one write per element (the first with its "[", the others with their separator) and
    # the "]" last, each when its event was complete: event 2 came in two reads
    t = complete_at(r)
    assert t == [0.7342, 0.9021, 1.0566]
    assert plan.writes == [
        (t[0], b"[" + e[0]),
        (t[1], SEP + e[1]),
        (t[2], SEP + e[2]),
        (t[2], b"\n]"),
    ]
    assert plan.ending == END and plan.t_head == r.t_head
    assert plan.headers[0] == ("content-type", ARRAY_CONTENT_TYPE)
    assert [k for k, _ in plan.headers].count("content-type") == 1
    assert plan.will_fire == []


@pytest.mark.parametrize("name", GEMINIS)
def test_every_gemini_recording_as_an_array(name: str) -> None:
    r = rec(name)
    plan = make_plan(r, array=True)
    assert json.loads(plan.body) == [json.loads(d) for d in payloads(name)]
    assert plan.body.startswith(b"[{\n  ") and plan.body.endswith(b"\n}\n]")
    assert plan.body.count(SEP) == len(payloads(name)) - 1
    assert [t for t, _ in plan.writes] == [*complete_at(r), complete_at(r)[-1]]
    assert make_plan(r, array=True, speed=2).writes[0][0] == pytest.approx(complete_at(r)[0] / 2)


@pytest.mark.parametrize("spec", ["1", "7", "event", "crlf"])
def test_splits_recut_the_array(spec: str) -> None:
    r = rec(GEMINI)
    whole = make_plan(r, array=True).body
    plan = make_plan(r, array=True, split=parse_split(spec))
    assert plan.body == whole
    if spec in ("1", "7"):
        assert all(len(d) <= int(spec) for _, d in plan.writes)
    if spec == "crlf":
        assert all(b"\r\n" not in d for _, d in plan.writes)
        assert sum(d.endswith(b"\r") for _, d in plan.writes) == whole.count(b"\r\n")


def test_drop_after_elements() -> None:
    r = rec(GEMINI)
    e = elements(GEMINI)
    one = make_plan(r, array=True, faults=parse_faults("drop-after-events=1"))
    assert one.body == b"[" + e[0] and one.ending == ABORT and one.will_fire == ["drop"]
    two = make_plan(r, array=True, faults=parse_faults("drop-after-events=2"))
    assert two.body == b"[" + e[0] + SEP + e[1] and two.ending == ABORT
    # after the last element the "]" is what is cut: the array is still not whole
    three = make_plan(r, array=True, faults=parse_faults("drop-after-events=3"))
    assert three.body == b"[" + e[0] + SEP + e[1] + SEP + e[2] and three.cut
    past = make_plan(r, array=True, faults=parse_faults("drop-after-events=9"))
    assert past.body.endswith(b"\n]") and past.ending == ABORT and not past.cut
    nothing = make_plan(r, array=True, faults=parse_faults("drop-after-events=0"))
    assert nothing.writes == [] and nothing.cut


def test_drop_after_bytes_counts_the_arrays_bytes() -> None:
    r = rec(GEMINI)
    whole = make_plan(r, array=True).body
    for n in (1, 50, 333, len(whole) - 1):
        plan = make_plan(r, array=True, faults=parse_faults(f"drop-after-bytes={n}"))
        assert plan.body == whole[:n] and plan.ending == ABORT and plan.cut


def test_error_at_adds_googles_error_element_then_the_end() -> None:
    r = rec(GEMINI)
    e = elements(GEMINI)
    plan = make_plan(r, array=True, faults=parse_faults("error-at=2"))
    assert plan.body == b"[" + e[0] + SEP + e[1] + SEP + ERROR_ELEMENT + b"\n]"
    assert plan.writes[-1] == (complete_at(r)[1], SEP + ERROR_ELEMENT + b"\n]")
    assert plan.ending == END and plan.will_fire == ["error"]
    got = json.loads(plan.body)
    assert got[-1] == providers.error_data("gemini") and len(got) == 3
    first = make_plan(r, array=True, faults=parse_faults("error-at=0"))
    assert first.body == b"[" + ERROR_ELEMENT + b"\n]"
    # past the last element: after it, before the "]" (never after the closed array)
    past = make_plan(r, array=True, faults=parse_faults("error-at=9"))
    assert json.loads(past.body)[-1] == providers.error_data("gemini")
    assert len(json.loads(past.body)) == 4


def test_stall_after_an_element() -> None:
    r = rec(GEMINI)
    base = make_plan(r, array=True, speed=0)
    plan = make_plan(r, array=True, speed=0, faults=parse_faults("stall=1.5@1"))
    assert plan.body == base.body
    assert [t for t, _ in plan.writes] == [0.0, 1.5, 1.5, 1.5]
    assert plan.stall_at == len(b"[" + elements(GEMINI)[0]) and plan.will_fire == ["stall"]


def test_truncate_last_cuts_the_last_element_and_the_end() -> None:
    r = rec(GEMINI)
    e = elements(GEMINI)
    plan = make_plan(r, array=True, faults=parse_faults("truncate-last"))
    head = b"[" + e[0] + SEP + e[1]
    last = SEP + e[2]
    assert plan.body == head + last[: len(last) // 2]
    assert plan.ending == END and plan.will_fire == ["truncate"]
    with pytest.raises(json.JSONDecodeError):
        json.loads(plan.body)


def _loaded(body: bytes) -> Loaded:
    headers = [("content-type", "text/event-stream")]
    return Loaded("g.sse", "g.sse", "gemini", None, 200, "OK", headers, 0.0, [(0.1, body)], True)


def test_a_recording_cut_mid_event_gives_an_array_that_is_cut_too() -> None:
    cut = _loaded(b'data: {"a": 1}\r\n\r\ndata: {"b": ')
    assert make_plan(cut, array=True).body == b'[{\n  "a": 1\n}'
    assert make_plan(_loaded(b""), array=True).body == b"[]"
    assert make_plan(_loaded(b'data: {"a": [1]}\n\n'), array=True).body == (
        b'[{\n  "a": [\n    1\n  ]\n}\n]'
    )


def test_fault_problems_for_the_sse_stream_hold_for_the_array() -> None:
    """fault_problems answers for the SSE stream; the array has the same elements, so a fault
    it passes also fires on the array."""
    r = rec(GEMINI)
    for spec in ("drop-after-events=2", "error-at=1", "stall=0.5@2", "truncate-last"):
        assert fault_problems(r, parse_faults(spec)) == []
        plan = make_plan(r, array=True, faults=parse_faults(spec))
        assert plan.will_fire, spec


# -- end to end --------------------------------------------------------------------------------


def _get(server: ReplayServer, target: str, fault: str | None = None) -> httpx.Response:
    with client() as http:
        return http.post(
            server.url + target,
            # Gemini's request has no "stream" (it refuses the name); another path's has
            json={"contents": []} if "models/" in target else {"contents": [], "stream": True},
            headers=headers_for(GEMINI, fault),
        )


def _last_served(server: ReplayServer, target: str) -> Served:
    """The log record of the last request for ``target`` (logged just after its last byte)."""
    shown = target.replace("key=abc", "key=[REDACTED]")
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        for x in reversed(server.served):
            if x.path == shown:
                return x
        time.sleep(0.01)
    raise AssertionError(f"{target} was not logged")


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with serving([GEMINI], measure=True) as s:
        yield s


@pytest.mark.parametrize("query", ["", "?alt=json", "?key=abc&alt=json"])
def test_without_alt_sse_the_answer_is_the_array(server: ReplayServer, query: str) -> None:
    resp = _get(server, PATH + query)
    assert resp.status_code == 200
    assert resp.headers["content-type"] == ARRAY_CONTENT_TYPE
    assert resp.content == make_plan(rec(GEMINI), array=True).body
    assert resp.json() == [json.loads(d) for d in payloads(GEMINI)]
    served = _last_served(server, PATH + query)
    assert served.framing == "json-array" and " as json-array 200 " in served.line()


@pytest.mark.parametrize("query", ["?alt=sse", "?key=abc&alt=sse", "?alt=json&alt=sse"])
def test_with_alt_sse_the_answer_is_the_recording(server: ReplayServer, query: str) -> None:
    resp = _get(server, PATH + query)
    assert resp.headers["content-type"] == "text/event-stream"
    assert resp.content == rec(GEMINI).body
    served = _last_served(server, PATH + query)
    assert served.framing == "sse" and " as " not in served.line()


def test_other_paths_naming_a_gemini_recording_get_its_sse(server: ReplayServer) -> None:
    resp = _get(server, "/v1/messages")
    assert resp.content == rec(GEMINI).body


def test_array_faults_end_to_end(server: ReplayServer) -> None:
    e = elements(GEMINI)
    before = len(server.served)
    with client() as http:
        url = server.url + PATH
        status, got, exc = fetch_raw(
            http, url, body={}, headers=headers_for(GEMINI, "drop-after-events=2")
        )
        assert (status, got) == (200, b"[" + e[0] + SEP + e[1])
        assert isinstance(exc, httpx.ReadError)
        status, got, exc = fetch_raw(http, url, body={}, headers=headers_for(GEMINI, "error-at=1"))
        assert exc is None and json.loads(got)[-1] == providers.error_data("gemini")
        status, got, exc = fetch_raw(
            http, url, body={}, headers=headers_for(GEMINI, "truncate-last")
        )
        assert (
            exc is None
            and got == make_plan(rec(GEMINI), array=True, faults=parse_faults("truncate-last")).body
        )

    def faulted() -> list[list[str]]:  # an earlier test's request may be logged late
        return [s.fired for s in server.served[before:] if s.faults]

    deadline = time.monotonic() + 2
    while len(faulted()) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert faulted() == [["drop"], ["error"], ["truncate"]]


def test_elements_arrive_when_their_events_were_complete() -> None:
    r = rec(GEMINI)
    with serving([GEMINI], speed=1) as server, client() as http:
        t0 = time.monotonic()
        arrivals: list[tuple[float, bytes]] = []
        with http.stream("POST", server.url + PATH, json={"stream": True}) as resp:
            head = time.monotonic() - t0
            for piece in resp.iter_raw():
                arrivals.append((time.monotonic() - t0, piece))
    assert b"".join(p for _, p in arrivals) == make_plan(r, array=True).body
    assert abs(head - r.t_head) < 0.05
    want = complete_at(r)
    first = arrivals[0][0]
    # the first element alone, the second only once its event's second read had come
    assert arrivals[0][1] == b"[" + elements(GEMINI)[0]
    second = next(t for t, p in arrivals if p.startswith(SEP))
    assert abs((second - first) - (want[1] - want[0])) < 0.03


# -- any body, any faults ------------------------------------------------------------------------

_ELEMENTS = st.lists(
    st.dictionaries(st.sampled_from(["a", "b", "text"]), st.integers(-5, 5), max_size=3),
    max_size=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _ELEMENTS,
    st.booleans(),
    st.one_of(st.none(), st.integers(0, 8)),
    st.one_of(st.none(), st.integers(0, 400)),
    st.one_of(st.none(), st.integers(0, 8)),
    st.booleans(),
    st.one_of(st.none(), st.integers(1, 9), st.sampled_from(["event", "crlf"])),
)
def test_any_array_with_any_faults(
    objs: list[dict[str, int]],
    crlf: bool,
    drop_events: int | None,
    drop_bytes: int | None,
    error_at: int | None,
    truncate: bool,
    split: int | str | None,
) -> None:
    """The array is the whole array cut where the first of the drop and the error point says;
    the error element closes the array, so it always parses; nothing is ever written after
    the closing bracket."""
    nl = b"\r\n" if crlf else b"\n"
    body = b"".join(b"data: " + json.dumps(o).encode() + nl + nl for o in objs)
    r = _loaded(body)
    whole = make_plan(r, array=True).body
    assert json.loads(whole) == objs
    faults = Faults(
        drop_after_events=drop_events,
        drop_after_bytes=drop_bytes,
        error_at=error_at,
        truncate_last=truncate,
    )
    plan = make_plan(r, array=True, split=split, faults=faults)
    assert all(d for _, d in plan.writes)
    ends = r.array.ends

    def after(n: int, past: int) -> int:
        return 0 if n <= 0 else (ends[n - 1] if n <= len(ends) else past)

    drop = None if drop_events is None else after(drop_events, len(whole))
    if drop_bytes is not None:
        drop = min(len(whole) if drop is None else drop, drop_bytes)
    error = None if error_at is None else after(error_at, ends[-1] if ends else 0)
    if drop is not None and (error is None or drop <= error):
        assert plan.ending == ABORT
        assert whole.startswith(plan.body) and len(plan.body) <= drop
    elif error is not None:
        assert plan.ending == END
        got = json.loads(plan.body)
        assert got[:-1] == objs[: len(got) - 1] and got[-1] == providers.error_data("gemini")
    else:
        assert plan.ending == END and whole.startswith(plan.body)
        if not truncate:
            assert plan.body == whole
    assert b"]" not in plan.body[:-1]  # the elements hold no "]": only the close, last
