"""Every case folder: the exact set of codes, however the bytes are split."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from sseconform import Settings, check_bytes, check_chunks
from sseconform.findings import Finding
from sseconform.rules.catalog import RULES
from sseconform.sse import SSEDecoder
from sseconform.sse.decoder import Event
from tests.conftest import CASES, case_settings

CASE_DIRS = sorted(p for p in CASES.glob("*/*") if (p / "stream.sse").is_file())


def _expected(case: Path) -> set[str]:
    return {ln.strip() for ln in (case / "expected.txt").read_text().splitlines() if ln.strip()}


@pytest.mark.parametrize("case", CASE_DIRS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case_codes(case: Path) -> None:
    result = check_bytes((case / "stream.sse").read_bytes(), case_settings(case))
    assert result.codes == _expected(case), [str(d) for d in result.findings]


@pytest.mark.parametrize("case", CASE_DIRS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_case_split_invariance(case: Path) -> None:
    body = (case / "stream.sse").read_bytes()
    whole = check_bytes(body, case_settings(case)).findings
    one_byte = check_chunks((body[i : i + 1] for i in range(len(body))), case_settings(case))
    assert one_byte.findings == whole
    rng = random.Random(case.name)
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, max(2, len(body))), k=min(6, max(0, len(body) - 1))))
        pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
        assert check_chunks(pieces, case_settings(case)).findings == whole


def test_every_code_has_a_failing_case() -> None:
    """Every chat rule (and every rule all grammars share) has a case here; the other
    grammars keep theirs under tests/cases/<grammar>/."""
    demonstrated = {p.name.split("-")[0] for p in CASES.glob("fail/*")}
    recording_only = {c for c in RULES if c.startswith("H")}
    chat = {c for c, r in RULES.items() if r.applies_to("chat")}
    missing = chat - demonstrated - recording_only
    assert not missing, f"rule codes with no fail/ case: {sorted(missing)}"


def test_pass_cases_have_no_error() -> None:
    for case in CASES.glob("pass/*"):
        assert all(RULES[c].severity.value == "info" for c in _expected(case)), case


# -- locations: a location is where an event starts --------------------------------------------

#: Findings about the end of the stream: located at the last event (none: the body's start).
AT_END = frozenset({"D001", "E003", "F001", "W018"})


def decoded_events(body: bytes, settings: Settings) -> list[Event]:
    """The events a client would get, each with its own start: what locations must name."""
    dec = SSEDecoder(max_line=settings.max_line, max_event=settings.max_event)
    return dec.feed(body) + dec.finish()


def starts_a_line(body: bytes, offset: int) -> bool:
    """Where a line begins (a BOM is not a line of its own)."""
    return (
        offset == 0
        or body[offset - 1 : offset] in (b"\n", b"\r")
        or body[:offset] == b"\xef\xbb\xbf"
    )


def where_of(d: Finding) -> tuple[int | None, int, int]:
    """A diagnostic's whole location, to compare with an event's."""
    assert d.offset is not None, d  # a grammar rule's finding is always at a byte
    return (d.frame, d.line, d.offset)


@pytest.mark.parametrize("case", CASE_DIRS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_location_is_where_an_event_starts(case: Path) -> None:
    """Each finding names an event and points at its first line; one about the end of the
    stream names the last event; a wire finding outside every event (a comment between
    events, an id-only block, the unterminated tail, the BOM) points at its own line."""
    body = (case / "stream.sse").read_bytes()
    settings = case_settings(case)
    events = decoded_events(body, settings)
    starts = {ev.frame: (ev.frame, ev.line, ev.offset) for ev in events}
    last = starts[events[-1].frame] if events else (None, 1, 0)
    for d in check_bytes(body, settings).findings:
        if d.code in AT_END or (d.code == "E002" and "ends after" in d.message):
            assert where_of(d) == last, (case.name, str(d))
        elif d.frame in starts:
            assert where_of(d) == starts[d.frame], (case.name, str(d))
        else:  # a line that belongs to no dispatched event
            _, _, at = where_of(d)
            assert d.code.startswith("W"), (case.name, str(d))
            assert starts_a_line(body, at), (case.name, str(d))
            assert not any(ev.offset <= at < ev.end for ev in events), (case.name, str(d))


def test_a_wire_finding_inside_an_event_says_where_in_it() -> None:
    """W001 on the third line of an event: located at the event, the line in the message."""
    body = b'event: message\ndata: {"a":\ndata: "caf\xe9"}\n\ndata: [DONE]\n\n'
    [w001] = [d for d in check_bytes(body).findings if d.code == "W001"]
    assert where_of(w001) == (1, 1, 0)
    bad = body.index(b"\xe9")
    assert w001.message.endswith(f"(line 3, byte {bad})"), w001.message


def test_end_of_stream_findings_name_the_last_event() -> None:
    """Not the byte past the body: the last event, as gate locates them."""
    body = (CASES / "fail" / "E003-silent-close" / "stream.sse").read_bytes()
    [e003] = check_bytes(body).findings
    last = decoded_events(body, Settings())[-1]
    assert where_of(e003) == (last.frame, last.line, last.offset)
    assert where_of(e003)[2] < len(body)
    assert check_bytes(b"").findings[0].offset == 0
