"""The replay plan, byte for byte: no sockets, no clock.

``make_plan`` turns a recording, a speed, a re-cut and faults into timed writes and an ending;
the server only executes it. So every split and every fault is checked here on exact bytes,
with the project's own SSE decoder counting events.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sseconform import providers
from sseconform.replay.faults import FAULT_HELP, SPLIT_HELP, Faults, parse_faults, parse_split
from sseconform.replay.plan import ABORT, END, Loaded, Plan, event_ends, make_plan
from sseconform.sse import decode_all
from tests.replay import make_recordings
from tests.replay.conftest import (
    ANTHROPIC_TEXT,
    ANTHROPIC_TOOL,
    GEMINI,
    LOADED,
    RECORDINGS_DIR,
    RESPONSES,
    TEXT,
    TOOLS,
    rec,
)

ALL = sorted(LOADED)
# One recording per dialect (and the CRLF one), for the fault tests.
PER_DIALECT = [TEXT, ANTHROPIC_TOOL, RESPONSES, GEMINI]


def offsets(plan: Plan) -> list[int]:
    """Where each write starts in the body."""
    out, pos = [], 0
    for _, data in plan.writes:
        out.append(pos)
        pos += len(data)
    return out


def read_starts(r: Loaded) -> list[int]:
    out, pos = [], 0
    for _, data in r.reads:
        out.append(pos)
        pos += len(data)
    return out


def time_at(r: Loaded, offset: int) -> float:
    """The recorded time of the read that holds the byte at ``offset``."""
    t = 0.0
    for start, (rt, _) in zip(read_starts(r), r.reads, strict=True):
        if start <= offset:
            t = rt
    return t


def events_of(body: bytes) -> list[tuple[str | None, str]]:
    events, _ = decode_all(body)
    return [(e.event, e.data) for e in events]


# -- the recordings the tests use ------------------------------------------------------------


def test_every_recording_loads_with_its_dialect() -> None:
    dialects = {name: r.dialect for name, r in LOADED.items()}
    assert dialects[TEXT] == dialects[TOOLS] == "openai"
    assert dialects[ANTHROPIC_TOOL] == dialects[ANTHROPIC_TEXT] == "anthropic"
    assert dialects[RESPONSES] == "responses"
    assert dialects[GEMINI] == "gemini"
    assert rec(ANTHROPIC_TOOL).model == "claude-sonnet-4-6"
    assert rec(GEMINI).model == "gemini-2.5-flash"
    for r in LOADED.values():
        assert r.complete and r.status == 200 and r.reads
        times = [t for t, _ in r.reads]
        assert times == sorted(times) and times[0] >= r.t_head


def test_make_recordings_is_reproducible(tmp_path: Path) -> None:
    """A re-run of the generator writes exactly the committed files."""
    written = make_recordings.main(tmp_path)
    assert len(written) == 4
    for path in written:
        committed = RECORDINGS_DIR / path.relative_to(tmp_path)
        assert committed.read_bytes() == path.read_bytes(), f"regenerate {committed}"


def _header(name: str) -> dict[str, object]:
    first = (RECORDINGS_DIR / "anthropic" / name).read_bytes().split(b"\n", 1)[0]
    header: dict[str, object] = json.loads(first)
    return header


@pytest.mark.parametrize("name", [ANTHROPIC_TOOL, ANTHROPIC_TEXT])
def test_anthropic_recordings_follow_the_messages_grammar(name: str) -> None:
    r = rec(name)
    req = _header(name)["request"]
    assert isinstance(req, dict)
    assert ["x-api-key", "[REDACTED]"] in req["headers"]
    assert ["anthropic-version", "2023-06-01"] in req["headers"]
    assert req["url"] == "https://api.anthropic.com/v1/messages"
    assert dict((k.lower(), v) for k, v in r.headers)["content-type"].startswith(
        "text/event-stream"
    )
    assert b"\r" not in r.body
    events, anomalies = decode_all(r.body)
    assert anomalies == []
    names = [e.event for e in events]
    datas = [json.loads(e.data) for e in events]
    assert all(d["type"] == e.event for d, e in zip(datas, events, strict=True))
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert "ping" in names
    start = datas[0]["message"]
    assert start["role"] == "assistant" and start["content"] == []
    assert start["usage"]["input_tokens"] > 0
    final = datas[-2]
    assert final["delta"]["stop_reason"] in ("end_turn", "tool_use")
    assert final["usage"]["output_tokens"] > 0
    # Blocks: each one starts, gets deltas of its own type, and stops, in index order.
    blocks: dict[int, list[dict[str, object]]] = {}
    for d in datas:
        if d["type"] == "content_block_start":
            assert d["index"] == len(blocks)
            blocks[d["index"]] = [d["content_block"]]
        elif d["type"] == "content_block_delta":
            blocks[d["index"]].append(d["delta"])
    for parts in blocks.values():
        head, deltas = parts[0], parts[1:]
        assert deltas
        if head["type"] == "text":
            assert {d["type"] for d in deltas} == {"text_delta"}
        else:
            assert head["type"] == "tool_use" and head["input"] == {}
            assert {d["type"] for d in deltas} == {"input_json_delta"}
            args = json.loads("".join(str(d["partial_json"]) for d in deltas))
            assert args == {"city": "Lisbon, Portugal", "unit": "celsius"}
    if name == ANTHROPIC_TOOL:
        assert [p[0]["type"] for p in blocks.values()] == ["text", "tool_use"]
        assert final["delta"]["stop_reason"] == "tool_use"


def test_responses_and_gemini_recordings_follow_their_grammar() -> None:
    events, anomalies = decode_all(rec(RESPONSES).body)
    assert anomalies == []
    datas = [json.loads(e.data) for e in events]
    assert [d["sequence_number"] for d in datas] == list(range(len(datas)))
    assert all(d["type"] == e.event for d, e in zip(datas, events, strict=True))
    assert datas[0]["type"] == "response.created" and datas[-1]["type"] == "response.completed"
    deltas = "".join(d["delta"] for d in datas if d["type"] == "response.output_text.delta")
    assert deltas == datas[-1]["response"]["output"][0]["content"][0]["text"]

    body = rec(GEMINI).body
    assert body.count(b"\r\n\r\n") == 3 and b"\n\n" not in body
    events, anomalies = decode_all(body)
    assert {a.kind for a in anomalies} == {"crlf"}
    datas = [json.loads(e.data) for e in events]
    assert all(e.event is None for e in events)
    assert datas[-1]["candidates"][0]["finishReason"] == "STOP"
    assert "finishReason" not in datas[0]["candidates"][0]


# -- no faults, no split -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_plain_plan_is_the_recording(name: str) -> None:
    r = rec(name)
    plan = make_plan(r)
    assert plan.writes == r.reads  # same cuts, same times
    assert plan.body == r.body
    assert (plan.status, plan.reason, plan.t_head, plan.ending) == (200, "OK", r.t_head, END)
    assert not plan.json_body


def test_hop_by_hop_headers_are_not_replayed() -> None:
    plan = make_plan(rec(ANTHROPIC_TOOL))
    names = [k.lower() for k, _ in plan.headers]
    for hop in ("transfer-encoding", "connection", "date", "server", "content-length"):
        assert hop not in names
    kept = dict(plan.headers)
    assert kept["content-type"] == "text/event-stream; charset=utf-8"
    assert kept["request-id"] == "req_011SseconformToolUse0001"


# -- splits -------------------------------------------------------------------------------------

SPLITS = ["1", "byte", "7", "bytes:64", "event", "crlf"]


@pytest.mark.parametrize("spec", SPLITS)
@pytest.mark.parametrize("name", ALL)
def test_split_keeps_every_byte(name: str, spec: str) -> None:
    r = rec(name)
    plan = make_plan(r, split=parse_split(spec))
    assert plan.body == r.body
    assert all(data for _, data in plan.writes)
    # A re-cut write leaves at the time of the read that holds its first byte.
    for start, (t, _) in zip(offsets(plan), plan.writes, strict=True):
        assert t == time_at(r, start)


@pytest.mark.parametrize("name", ALL)
def test_split_n_bytes_replaces_the_recorded_reads(name: str) -> None:
    """Regression: the recorded read boundaries used to stay, so writes were not N bytes."""
    r = rec(name)
    for n in (1, 7, 64, 100, 4096):
        sizes = [len(d) for _, d in make_plan(r, split=n).writes]
        assert all(size == n for size in sizes[:-1]), (n, sizes[:8])
        assert 0 < sizes[-1] <= n and sum(sizes) == len(r.body)
    assert [len(d) for _, d in make_plan(r, split=parse_split("byte")).writes] == [1] * len(r.body)


@pytest.mark.parametrize("name", ALL)
def test_split_event_is_one_write_per_event(name: str) -> None:
    """Regression: reads split mid-event used to stay split (21 events gave 38 writes)."""
    r = rec(name)
    ends = event_ends(r.body)
    assert ends[-1] == len(r.body)  # every recording ends with a whole event
    expected = [r.body[a:b] for a, b in zip([0, *ends], ends, strict=False)]
    plan = make_plan(r, split="event")
    assert [data for _, data in plan.writes] == expected
    assert [len(decode_all(data)[0]) for _, data in plan.writes] == [1] * len(ends)


@pytest.mark.parametrize("name", ALL)
def test_split_crlf_cuts_between_cr_and_lf(name: str) -> None:
    r = rec(name)
    plan = make_plan(r, split="crlf")
    cuts = set(offsets(plan))
    crlf = {i + 1 for i in range(len(r.body) - 1) if r.body[i : i + 2] == b"\r\n"}
    assert crlf <= cuts
    assert cuts - crlf <= set(read_starts(r))
    for _, data in plan.writes:
        assert b"\r\n" not in data
    if name == GEMINI:
        assert len(crlf) == 6  # three events, each "data: ...\r\n\r\n"
        assert sum(data.endswith(b"\r") for _, data in plan.writes) == 6
        assert sum(data.startswith(b"\n") for _, data in plan.writes) == 6
    elif b"\r\n" in r.body:  # other CRLF recordings (Gemini's real framing)
        assert sum(data.endswith(b"\r") for _, data in plan.writes) == len(crlf)
    else:
        assert plan.writes == r.reads  # LF framing: nothing to cut


def test_parse_split() -> None:
    assert parse_split(None) is None and parse_split("") is None
    assert parse_split("byte") == parse_split("bytes") == parse_split("1") == 1
    assert parse_split("bytes:16") == parse_split(" 16 ") == 16
    assert parse_split("Event") == "event" and parse_split("crlf") == "crlf"


@pytest.mark.parametrize("spec", ["0", "-3", "abc", "1.5", "bytes:", "lines", "event,crlf"])
def test_parse_split_rejects_with_the_valid_modes(spec: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_split(spec)
    msg = str(info.value)
    assert repr(spec) in msg and SPLIT_HELP in msg
    for word in ("N", "byte", "event", "crlf"):
        assert word in msg


# -- bodies and splits at random -------------------------------------------------------------

_PIECES = st.sampled_from(
    [b"data: ", b"event: x", b"{}", b":c", b"\n", b"\r\n", b"\r", b"\n\n", b"\r\n\r\n", b"\xe2\x82"]
)
_BODIES = st.lists(
    st.one_of(_PIECES, st.binary(min_size=1, max_size=12)), min_size=1, max_size=40
).map(b"".join)


@st.composite
def recordings(draw: st.DrawFn) -> Loaded:
    body = draw(_BODIES)
    cuts = sorted(draw(st.sets(st.integers(1, max(1, len(body) - 1)), max_size=8)))
    cuts = [c for c in cuts if 0 < c < len(body)]
    bounds = [0, *cuts, len(body)]
    gaps = draw(st.lists(st.floats(0, 0.2), min_size=len(bounds), max_size=len(bounds)))
    t = draw(st.floats(0, 1))
    reads = []
    for i in range(len(bounds) - 1):
        t += gaps[i]
        reads.append((t, body[bounds[i] : bounds[i + 1]]))
    headers = [("content-type", "text/event-stream")]
    return Loaded("r.sse", "r.sse", "openai", None, 200, "OK", headers, 0.0, reads, True)


_SPLITS = st.one_of(st.none(), st.integers(1, 40), st.sampled_from(["event", "crlf"]))
_SPEEDS = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(recordings(), _SPLITS, _SPEEDS)
def test_any_split_of_any_body_keeps_the_bytes(
    r: Loaded, split: str | int | None, speed: float
) -> None:
    plan = make_plan(r, speed=speed, split=split)
    assert plan.body == r.body
    assert all(data for _, data in plan.writes)
    times = [t for t, _ in plan.writes]
    assert times == sorted(times)
    scale = 0.0 if speed == 0 else 1 / speed
    for start, (t, _) in zip(offsets(plan), plan.writes, strict=True):
        assert math.isclose(t, time_at(r, start) * scale, abs_tol=1e-12)
    if isinstance(split, int):
        assert offsets(plan) == list(range(0, len(r.body), split))
    if split == "event":
        ends = [e for e in event_ends(r.body) if e < len(r.body)]
        assert offsets(plan) == [0, *ends]
    if split == "crlf":
        assert all(b"\r\n" not in d for _, d in plan.writes)
        assert set(read_starts(r)) <= set(offsets(plan))


@settings(max_examples=200, deadline=None)
@given(recordings(), st.integers(0, 60), st.sampled_from(["drop-after-events", "error-at"]))
def test_any_body_event_faults_cut_at_event_ends(r: Loaded, n: int, fault: str) -> None:
    ends = event_ends(r.body)
    plan = make_plan(r, faults=parse_faults(f"{fault}={n}"))
    cut = 0 if n == 0 else (ends[n - 1] if n <= len(ends) else len(r.body))
    if fault == "drop-after-events":
        assert plan.body == r.body[:cut] and plan.ending == ABORT
    else:
        tail = providers.error_event("openai", b"\r\n" if b"\r\n" in r.body[:4096] else b"\n")
        assert plan.body == r.body[:cut] + tail and plan.ending == END


@settings(max_examples=200, deadline=None)
@given(recordings(), st.integers(0, 400), _SPLITS)
def test_any_body_drop_after_bytes(r: Loaded, n: int, split: str | int | None) -> None:
    plan = make_plan(r, split=split, faults=parse_faults(f"drop-after-bytes={n}"))
    assert plan.body == r.body[:n]
    assert plan.ending == ABORT


_OPTIONAL_COUNT = st.one_of(st.none(), st.integers(0, 30))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    recordings(),
    _SPLITS,
    _SPEEDS,
    _OPTIONAL_COUNT,
    st.one_of(st.none(), st.integers(0, 400)),
    _OPTIONAL_COUNT,
    st.one_of(st.none(), st.tuples(st.sampled_from([0.0, 0.25, 2.0]), st.integers(0, 30))),
)
def test_any_fault_combination(
    r: Loaded,
    split: str | int | None,
    speed: float,
    drop_events: int | None,
    drop_bytes: int | None,
    error_at: int | None,
    stall: tuple[float, int] | None,
) -> None:
    """The body is what the first of the drop and the error point lets through (a drop at or
    before the error point wins), every write is timed from its recorded read, and the stall
    delays exactly the writes from its event on (a stall past that point never happens)."""
    faults = Faults(
        drop_after_events=drop_events, drop_after_bytes=drop_bytes, error_at=error_at, stall=stall
    )
    plan = make_plan(r, speed=speed, split=split, faults=faults)
    body, ends = r.body, event_ends(r.body)

    def after(n: int) -> int:
        return 0 if n <= 0 else (ends[n - 1] if n <= len(ends) else len(body))

    drop = None if drop_events is None else after(drop_events)
    if drop_bytes is not None:
        drop = min(len(body) if drop is None else drop, drop_bytes)
    error = None if error_at is None else after(error_at)
    if drop is not None and (error is None or drop <= error):
        limit, tail, ending = drop, b"", ABORT
    elif error is not None:
        framing = b"\r\n" if b"\r\n" in body[:4096] else b"\n"
        limit, tail, ending = error, providers.error_event("openai", framing), END
    else:
        limit, tail, ending = len(body), b"", END
    assert plan.body == body[:limit] + tail
    assert plan.ending == ending
    assert all(data for _, data in plan.writes)
    times = [t for t, _ in plan.writes]
    assert times == sorted(times)
    scale = 0.0 if speed == 0 else 1 / speed
    stall_at = None if stall is None else after(stall[1])
    if stall_at is not None and stall_at > limit:
        stall_at = None  # past the drop or the error point: never reached (nor cuts the error)
    for start, (t, data) in zip(offsets(plan), plan.writes, strict=True):
        recorded = time_at(r, min(start, max(limit - 1, 0))) * scale
        delay = stall[0] if stall is not None and stall_at is not None and start >= stall_at else 0
        assert math.isclose(t, recorded + delay, abs_tol=1e-9), (start, t, recorded, delay)
        if isinstance(split, int):
            assert len(data) <= split
    if split == "event":
        assert {e for e in ends if e < limit} <= set(offsets(plan))
    if tail and limit and not isinstance(split, int):
        assert limit in offsets(plan)  # the injected event is a write (or writes) of its own


# -- faults ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", PER_DIALECT)
def test_drop_after_events(name: str) -> None:
    r = rec(name)
    ends = event_ends(r.body)
    for n in sorted({1, 2, len(ends) - 1}):
        plan = make_plan(r, faults=parse_faults(f"drop-after-events={n}"))
        assert plan.body == r.body[: ends[n - 1]]
        assert len(decode_all(plan.body)[0]) == n
        assert plan.ending == ABORT
        assert plan.writes[-1][1].endswith(b"\n")  # exactly at the event's end
    # after every event: the whole body, then the connection drops anyway
    whole = make_plan(r, faults=parse_faults(f"drop-after-events={len(ends) + 5}"))
    assert whole.body == r.body and whole.ending == ABORT
    nothing = make_plan(r, faults=parse_faults("drop-after-events=0"))
    assert nothing.writes == [] and nothing.ending == ABORT


@pytest.mark.parametrize("name", PER_DIALECT)
def test_drop_after_bytes(name: str) -> None:
    r = rec(name)
    for n in (1, 100, 333, len(r.body) - 1, len(r.body), len(r.body) + 10):
        plan = make_plan(r, faults=parse_faults(f"drop-after-bytes={n}"))
        assert plan.body == r.body[:n]
        assert len(plan.body) == min(n, len(r.body))
        assert plan.ending == ABORT


@pytest.mark.parametrize("speed", [0.0, 1.0, 2.0])
@pytest.mark.parametrize("name", [TEXT, ANTHROPIC_TOOL, GEMINI])
def test_stall_delays_only_the_writes_after_event_n(name: str, speed: float) -> None:
    r = rec(name)
    at = event_ends(r.body)[1]  # after event 2
    base = make_plan(r, speed=speed)
    plan = make_plan(r, speed=speed, faults=parse_faults("stall=1.5@2"))
    assert plan.body == r.body and plan.ending == END
    assert at in offsets(plan)  # the pause falls exactly at the event boundary
    scale = 0.0 if speed == 0 else 1 / speed
    for start, (t, _) in zip(offsets(plan), plan.writes, strict=True):
        recorded = time_at(r, start) * scale
        assert math.isclose(t, recorded + (1.5 if start >= at else 0.0), abs_tol=1e-9)
    # the cut at the stall is the only new one
    assert set(offsets(plan)) - set(offsets(base)) <= {at}


def test_stall_at_zero_and_without_event() -> None:
    r = rec(TEXT)
    plan = make_plan(r, speed=0, faults=parse_faults("stall=0.25"))
    assert [t for t, _ in plan.writes] == [0.25] * len(plan.writes)
    assert parse_faults("stall=2@0").stall == parse_faults("stall=2").stall == (2.0, 0)


def _error_event(name: str) -> tuple[str | None, dict[str, object]]:
    r = rec(name)
    n = 3
    plan = make_plan(r, faults=parse_faults(f"error-at={n}"))
    ends = event_ends(r.body)
    head = r.body[: ends[n - 1]]
    assert plan.body.startswith(head)
    assert plan.ending == END
    tail = plan.body[len(head) :]
    assert plan.writes[-1][1] == tail  # the injected event is one write ...
    assert plan.writes[-1][0] == plan.writes[-2][0]  # ... right after event n
    events, _ = decode_all(plan.body)
    assert len(events) == n + 1
    assert events[-1].offset == len(head) and events[-1].end == len(plan.body)
    obj: dict[str, object] = json.loads(events[-1].data)
    return events[-1].event, obj


def test_error_at_anthropic() -> None:
    name, obj = _error_event(ANTHROPIC_TOOL)
    assert name == "error"
    assert obj == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    tail = make_plan(rec(ANTHROPIC_TOOL), faults=parse_faults("error-at=3")).writes[-1][1]
    assert tail.startswith(b"event: error\ndata: {") and tail.endswith(b"}\n\n")


def test_error_at_openai() -> None:
    name, obj = _error_event(TEXT)
    assert name is None
    error = obj["error"]
    assert isinstance(error, dict) and set(obj) == {"error"}
    assert isinstance(error["message"], str) and error["type"] == "server_error"
    tail = make_plan(rec(TEXT), faults=parse_faults("error-at=3")).writes[-1][1]
    assert tail.startswith(b'data: {"error": {') and tail.endswith(b"}}\n\n")


def test_error_at_responses() -> None:
    name, obj = _error_event(RESPONSES)
    assert name == "error" and obj["type"] == "error"
    assert isinstance(obj["message"], str) and obj["code"] == "server_error"


def test_error_at_responses_continues_the_sequence() -> None:
    """Regression: the injected Responses error always carried sequence_number 0."""
    _, obj = _error_event(RESPONSES)  # after events 0..2
    assert obj["sequence_number"] == 3
    plan = make_plan(rec(RESPONSES), faults=parse_faults("error-at=0"))
    assert json.loads(decode_all(plan.body)[0][0].data)["sequence_number"] == 0


def test_error_at_gemini_keeps_the_crlf_framing() -> None:
    name, obj = _error_event(GEMINI)
    assert name is None
    assert obj == {
        "error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}
    }
    tail = make_plan(rec(GEMINI), faults=parse_faults("error-at=2")).writes[-1][1]
    assert tail.startswith(b"data: {") and tail.endswith(b"}\r\n\r\n")
    assert b"\n" not in tail.replace(b"\r\n", b"")


def test_error_at_zero_sends_only_the_error() -> None:
    plan = make_plan(rec(ANTHROPIC_TEXT), faults=parse_faults("error-at=0"))
    assert plan.body == providers.error_event("anthropic")
    assert plan.ending == END


@pytest.mark.parametrize("name", PER_DIALECT)
def test_truncate_last(name: str) -> None:
    r = rec(name)
    ends = event_ends(r.body)
    plan = make_plan(r, faults=parse_faults("truncate-last"))
    assert r.body.startswith(plan.body)
    assert ends[-2] < len(plan.body) < ends[-1]
    assert len(decode_all(plan.body)[0]) == len(ends) - 1  # the last one never dispatches
    assert plan.ending == END  # a clean end: the cut is in the body, not the connection


@pytest.mark.parametrize(
    ("name", "status", "expected"),
    [
        (ANTHROPIC_TOOL, 429, {"type": "error", "error": {"type": "rate_limit_error"}}),
        (ANTHROPIC_TOOL, 500, {"type": "error", "error": {"type": "api_error"}}),
        (ANTHROPIC_TOOL, 529, {"type": "error", "error": {"type": "overloaded_error"}}),
        (TEXT, 429, {"error": {"type": "requests", "code": "rate_limit_exceeded"}}),
        (TEXT, 500, {"error": {"type": "server_error", "code": None}}),
        (TEXT, 529, {"error": {"type": "server_error", "code": None}}),
        (RESPONSES, 429, {"error": {"type": "requests", "code": "rate_limit_exceeded"}}),
        (GEMINI, 429, {"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}}),
        (GEMINI, 500, {"error": {"code": 500, "status": "INTERNAL"}}),
    ],
)
def test_status_gives_the_providers_error_body(
    name: str, status: int, expected: dict[str, dict[str, object]]
) -> None:
    plan = make_plan(rec(name), faults=parse_faults(f"status={status}"))
    assert plan.status == status and plan.json_body and plan.ending == END
    assert plan.reason == {429: "Too Many Requests", 500: "Internal Server Error"}.get(
        status, "Overloaded"
    )
    retry = [("retry-after", "1")] if name != GEMINI and status in (429, 529) else []
    if status == 529 and rec(name).dialect != "anthropic":
        retry = []  # only Anthropic says when to retry an overload
    assert plan.headers == [("content-type", "application/json"), *retry]
    assert len(plan.writes) == 1 and plan.writes[0][0] == 0.0
    body = json.loads(plan.body)
    for key, want in expected.items():
        if isinstance(want, dict):
            for k, v in want.items():
                assert body[key][k] == v, (key, k)
        else:
            assert body[key] == want
    assert isinstance((body["error"])["message"], str)
    if rec(name).dialect in ("openai", "responses"):
        assert set(body["error"]) == {"message", "type", "param", "code"}


def test_status_wins_over_stream_faults() -> None:
    plan = make_plan(rec(TEXT), faults=parse_faults("drop-after-events=2,status=500"))
    assert plan.status == 500 and plan.json_body and plan.ending == END


# -- speed ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL)
def test_speed_scales_every_time(name: str) -> None:
    r = rec(name)
    zero = make_plan(r, speed=0)
    assert zero.t_head == 0 and all(t == 0 for t, _ in zero.writes)
    assert zero.body == r.body
    double = make_plan(r, speed=2)
    assert double.t_head == pytest.approx(r.t_head / 2)
    assert [t for t, _ in double.writes] == pytest.approx([t / 2 for t, _ in r.reads])
    half = make_plan(r, speed=0.5)
    assert [t for t, _ in half.writes] == pytest.approx([t * 2 for t, _ in r.reads])


def test_speed_zero_keeps_only_the_stall() -> None:
    r = rec(ANTHROPIC_TEXT)
    at = event_ends(r.body)[1]
    plan = make_plan(r, speed=0, faults=parse_faults("stall=0.75@2"))
    for start, (t, _) in zip(offsets(plan), plan.writes, strict=True):
        assert t == (0.75 if start >= at else 0.0)


# -- fault specs ----------------------------------------------------------------------------


def test_parse_faults() -> None:
    f = parse_faults("drop-after-events=3, stall=2.5@1 ,error-at=4,truncate-last,status=429")
    assert f.drop_after_events == 3 and f.stall == (2.5, 1) and f.error_at == 4
    assert f.truncate_last and f.status == 429 and f
    assert parse_faults("drop-after-bytes=10").drop_after_bytes == 10
    assert parse_faults("STATUS=529").status == 529
    assert not parse_faults(None) and not parse_faults("") and not parse_faults(" , ")


@pytest.mark.parametrize(
    ("spec", "kind"),
    [
        ("bogus", "unknown fault"),
        ("drop-after=3", "unknown fault"),
        ("truncate-last=1", "unknown fault"),
        ("status=200", "bad value"),
        ("status=600", "bad value"),
        ("status=abc", "bad value"),
        ("drop-after-events=-1", "bad value"),
        ("drop-after-events=", "bad value"),
        ("drop-after-bytes=1.5", "bad value"),
        ("stall=-1@2", "bad value"),
        ("stall=1@x", "bad value"),
        ("stall=1@-2", "bad value"),
        ("error-at=x", "bad value"),
    ],
)
def test_parse_faults_rejects_with_the_valid_ones(spec: str, kind: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_faults(spec)
    msg = str(info.value)
    assert msg.startswith(kind) and FAULT_HELP in msg
    for name in (
        "status=",
        "drop-after-events=",
        "drop-after-bytes=",
        "stall=",
        "error-at=",
        "truncate-last",
    ):
        assert name in msg


@pytest.mark.parametrize("spec", ["stall=nan@1", "stall=inf@1", "stall=-inf", "stall=1e9@1"])
def test_parse_faults_rejects_stalls_that_are_not_a_time(spec: str) -> None:
    """Regression: stall=nan was accepted and silently did nothing (nan > 0 is False)."""
    with pytest.raises(ValueError, match="bad value"):
        parse_faults(spec)


def test_faults_built_in_code_apply() -> None:
    """Regression: bool(Faults) used to be bool(spec), so a Faults built in code was ignored."""
    r = rec(TEXT)
    plan = make_plan(r, faults=Faults(drop_after_events=2))
    assert plan.body == r.body[: event_ends(r.body)[1]]
    assert plan.ending == ABORT
    assert not Faults() and Faults(truncate_last=True) and Faults(stall=(0.0, 0))
    plan = make_plan(r, speed=0, faults=Faults(stall=(0.5, 1)))
    assert plan.writes[-1][0] == 0.5


def test_a_drop_before_the_error_event_wins() -> None:
    """Regression: error-at used to reset the ending to END and glue its event to a byte drop."""
    r = rec(TEXT)
    ends = event_ends(r.body)
    plan = make_plan(r, faults=parse_faults("drop-after-events=2,error-at=5"))
    assert plan.body == r.body[: ends[1]] and plan.ending == ABORT
    plan = make_plan(r, faults=parse_faults("drop-after-bytes=10,error-at=3"))
    assert plan.body == r.body[:10] and plan.ending == ABORT  # never glued to an error event
    # the other way round: the error event comes first, and the stream ends cleanly after it
    plan = make_plan(r, faults=parse_faults("error-at=2,drop-after-events=5"))
    assert plan.body == r.body[: ends[1]] + providers.error_event("openai")
    assert plan.ending == END


@pytest.mark.parametrize("spec", ["1", "5", "event", "crlf"])
def test_split_also_cuts_the_injected_error_event(spec: str) -> None:
    """Regression: the injected error event used to go out as one write whatever the split."""
    r = rec(GEMINI)
    head = body_through_plan(r, 2)
    tail = providers.error_event("gemini", b"\r\n")
    plan = make_plan(r, split=parse_split(spec), faults=parse_faults("error-at=2"))
    assert plan.body == head + tail and plan.ending == END
    sizes = [len(d) for _, d in plan.writes]
    if spec in ("1", "5"):
        assert all(size == int(spec) for size in sizes[:-1])
    elif spec == "event":
        assert [d for _, d in plan.writes][-1] == tail  # the error event is a write of its own
    else:
        assert len(head) in offsets(plan)
        assert all(b"\r\n" not in d for _, d in plan.writes)
        assert sum(d.endswith(b"\r") for _, d in plan.writes) >= tail.count(b"\r\n")


def body_through_plan(r: Loaded, n: int) -> bytes:
    return r.body[: event_ends(r.body)[n - 1]]
