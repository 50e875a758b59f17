"""Whether a fault can fire (``fault_problems``, pure) and whether it did (``Served.fired``).

``fault_problems`` says, in words, which faults cannot take effect on a recording as placed:
the gate refuses such a scenario, since it would test nothing and still pass. ``Served.fired``
lists what the server actually started on the wire: the status sent, the stall's wait begun,
the injected error event or the cut last event written, the reset before the natural end. A
client that leaves before a fault's point leaves it unfired.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sseconform.replay.faults import Faults, parse_faults
from sseconform.replay.plan import Loaded, fault_problems, make_plan
from sseconform.replay.served import Served
from sseconform.replay.server import ReplayServer
from tests.replay.conftest import (
    ANTHROPIC_TOOL,
    GEMINI,
    HOST,
    LOADED,
    RECORDINGS_DIR,
    RESPONSES,
    TEXT,
    client,
    fetch_raw,
    headers_for,
    path_for,
    rec,
    serving,
)


def _loaded(body: bytes, dialect: str = "openai") -> Loaded:
    headers = [("content-type", "text/event-stream")]
    return Loaded("x.sse", "x.sse", dialect, None, 200, "OK", headers, 0.0, [(0.0, body)], True)


TWO_EVENTS = _loaded(b'data: {"a": 1}\n\ndata: {"b": 2}\n\n')


# -- fault_problems ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "problems"),
    [
        ("stall=2@4", ["stall=2@4: stall after event 4, but the recording has 2 events: "
                       "nothing is left to delay"]),
        ("stall=2@2", ["stall=2@2: stall after event 2, but the recording has 2 events: "
                       "nothing is left to delay"]),
        ("stall=2@1", []),
        ("stall=0@1", ["stall=0@1: a stall of 0 seconds delays nothing"]),
        ("drop-after-events=2", ["drop-after-events=2: the recording has 2 events, so the drop "
                                 "would come after the whole stream"]),
        ("drop-after-events=1", []),
        ("drop-after-events=0", []),
        ("drop-after-bytes=32", ["drop-after-bytes=32: the body is 32 bytes, so the drop would "
                                 "come after the whole stream"]),
        ("drop-after-bytes=31", []),
        ("error-at=3", ["error-at=3: the recording has 2 events, so the error would come after "
                        "the whole stream"]),
        ("error-at=2", []),
        ("error-at=0", []),
        ("truncate-last", []),
        ("status=429", []),
        ("status=500,drop-after-events=1", ["drop-after-events=1: status=500 answers with an "
                                            "HTTP error before any stream, so it never happens"]),
        ("drop-after-events=1,error-at=2", ["error-at=2: the drop comes first, so the error is "
                                            "never sent"]),
        ("error-at=1,truncate-last", ["truncate-last: the injected error event is the last one, "
                                      "and it is whole"]),
        ("drop-after-bytes=5,stall=1@1", ["stall=1@1: the drop or the error comes first, so the "
                                          "stall never starts"]),
    ],
)  # fmt: skip
def test_fault_problems_in_words(spec: str, problems: list[str]) -> None:
    assert len(TWO_EVENTS.body) == 32 and len(TWO_EVENTS.ends) == 2
    assert fault_problems(TWO_EVENTS, parse_faults(spec)) == problems


def test_truncate_last_needs_an_event() -> None:
    no_events = _loaded(b": just a comment\n\n")
    assert fault_problems(no_events, parse_faults("truncate-last")) == [
        "truncate-last: the body has no events to cut"
    ]
    assert fault_problems(no_events, parse_faults("status=503")) == []


@pytest.mark.parametrize("dialect", ["anthropic", "gemini", "responses"])
def test_the_gates_built_in_faults_can_fire_on_its_recordings(dialect: str) -> None:
    """The stall and the mid-stream drop the built-in suites use, on their text recordings."""
    r = LOADED[f"text-{dialect}.jsonl"]
    for spec in ("stall=2@4", "drop-after-events=3", "error-at=2", "truncate-last", "status=429"):
        assert fault_problems(r, parse_faults(spec)) == [], (dialect, spec)
    n = len(r.ends)
    assert fault_problems(r, parse_faults(f"stall=2@{n + 3}")) != []
    assert RECORDINGS_DIR.joinpath(dialect, f"text-{dialect}.jsonl").is_file()


_BODIES = st.lists(
    st.sampled_from([b"data: x\n\n", b"event: e\ndata: y\r\n\r\n", b": c\n\n", b"data: z", b"\n"]),
    max_size=8,
).map(b"".join)
_COUNT = st.one_of(st.none(), st.integers(0, 10))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    _BODIES,
    _COUNT,
    st.one_of(st.none(), st.integers(0, 80)),
    _COUNT,
    st.one_of(st.none(), st.tuples(st.sampled_from([0.0, 1.0]), st.integers(0, 10))),
    st.booleans(),
)
def test_a_fault_without_problems_fires_for_a_reader_to_the_end(
    body: bytes,
    drop_events: int | None,
    drop_bytes: int | None,
    error_at: int | None,
    stall: tuple[float, int] | None,
    truncate: bool,
) -> None:
    """No problem named means every fault given shows up in what the plan will fire; a fault
    missing from it is always named."""
    faults = Faults(
        drop_after_events=drop_events,
        drop_after_bytes=drop_bytes,
        error_at=error_at,
        stall=stall,
        truncate_last=truncate,
    )
    r = _loaded(body)
    problems = fault_problems(r, faults)
    fires = set(make_plan(r, speed=0, faults=faults).will_fire)
    wanted = {
        "drop": drop_events is not None or drop_bytes is not None,
        "error": error_at is not None,
        "stall": stall is not None,
        "truncate": truncate,
    }
    named = {
        "drop": ("drop-after-events", "drop-after-bytes"),
        "error": ("error-at",),
        "stall": ("stall",),
        "truncate": ("truncate-last",),
    }
    for fault, given_ in wanted.items():
        if given_ and fault not in fires:
            assert any(p.startswith(named[fault]) for p in problems), (fault, problems)
        if not given_:
            assert fault not in fires


# -- Served.fired -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def server() -> Iterator[ReplayServer]:
    with serving([TEXT, ANTHROPIC_TOOL, RESPONSES, GEMINI], measure=True) as s:
        yield s


def _last(server: ReplayServer, before: int) -> Served:
    deadline = time.monotonic() + 2
    while len(server.served) <= before and time.monotonic() < deadline:
        time.sleep(0.01)
    return server.served[-1]


@pytest.mark.parametrize(
    ("fault", "fired"),
    [
        (None, []),
        ("status=429", ["status"]),
        ("drop-after-events=2", ["drop"]),
        ("drop-after-bytes=100", ["drop"]),
        ("drop-after-events=99", []),  # after the whole stream: the reset cuts nothing
        ("stall=0.05@2", ["stall"]),
        ("stall=0.05@99", []),
        ("error-at=2", ["error"]),
        ("truncate-last", ["truncate"]),
        ("stall=0.05@1,error-at=3", ["stall", "error"]),
        ("truncate-last,drop-after-events=2", ["truncate", "drop"]),
    ],
)
@pytest.mark.parametrize("name", [TEXT, ANTHROPIC_TOOL, RESPONSES, GEMINI])
def test_what_fired_for_a_client_that_reads_to_the_end(
    server: ReplayServer, name: str, fault: str | None, fired: list[str]
) -> None:
    before = len(server.served)
    with client() as http:
        fetch_raw(http, server.url + path_for(name), headers=headers_for(name, fault))
    served = _last(server, before)
    assert served.fired == fired
    faults = parse_faults(fault)
    assert make_plan(rec(name), faults=faults).will_fire == fired
    line = served.line()
    assert (f"fired={','.join(fired) or 'none'}" in line) == bool(fault)


def test_a_client_that_leaves_before_the_fault_point_leaves_it_unfired() -> None:
    """At speed 1 the recording takes 1.1 s; the client reads the head and the first events
    and leaves: the error due after event 12 and the stall after event 10 never start."""
    with serving([ANTHROPIC_TOOL], speed=1, measure=True) as server:
        for fault in ("error-at=12", "stall=5@10", "truncate-last", "drop-after-events=14"):
            before = len(server.served)
            s = socket.create_connection((HOST, server.port), timeout=5)
            s.sendall(
                f"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n"
                f"x-sseconform-fault: {fault}\r\n\r\n".encode()
            )
            assert s.recv(65536).startswith(b"HTTP/1.1 200 OK")
            s.close()
            served = _last(server, before)
            assert served.ending == "client hung up", served.line()
            assert served.fired == [], served.line()
            assert "fired=none" in served.line()


def test_a_stall_a_client_leaves_in_the_middle_of_has_fired() -> None:
    with serving([ANTHROPIC_TOOL], speed=0, measure=True) as server:
        s = socket.create_connection((HOST, server.port), timeout=5)
        s.sendall(
            b"POST /v1/messages HTTP/1.1\r\nhost: x\r\ncontent-length: 0\r\n"
            b"x-sseconform-fault: stall=3@2\r\n\r\n"
        )
        assert s.recv(65536).startswith(b"HTTP/1.1 200 OK")
        time.sleep(0.2)  # the stall has begun
        s.close()
        served = _last(server, 0)
    assert served.fired == ["stall"] and served.ending == "client hung up"


def test_head_fires_nothing_but_a_status(server: ReplayServer) -> None:
    with client() as http:
        for fault in ("drop-after-events=1", "status=503"):  # a provider path takes POST alone
            before = len(server.served)
            resp = http.head(server.url + "/v1/chat/completions", headers=headers_for(TEXT, fault))
            assert (resp.status_code, resp.content) == (405, b"")
            assert _last(server, before).fired == []
