"""What a scenario's upstream sends, read once: the content of its first answer (with the
fault) and of a clean one (after a retry), the expectation, and how long the upstream takes.
A gateway's answer is graded against these (:mod:`.grading`), and a scenario's deadline
counts from them (:mod:`.bounds`).
"""

from __future__ import annotations

from dataclasses import dataclass

from sseconform.gate.content import Content, content_of
from sseconform.gate.scenario import Scenario
from sseconform.replay.faults import Faults, parse_faults
from sseconform.replay.plan import ABORT, Loaded, make_plan

__all__ = ["References", "references"]


@dataclass
class References:
    """What a scenario's upstream sends, read once: the expectation, and the content of the
    first answer (with its fault) and of a clean one (after a retry)."""

    faults: Faults
    expect: str
    first: Content | None  # None: a JSON error body, no stream
    clean: Content
    dropped: bool  # the first answer ends in a dropped connection
    #: seconds the upstream takes to send the longer of its two answers (at the speed asked)
    seconds: float = 0.0
    #: the dialect both were read in, and the bytes the clean answer's content was read from
    dialect: str = ""
    clean_bytes: bytes = b""

    def content_of(self, payload: bytes, dialect: str) -> Content | None:
        """The content already read of an answer the upstream served (timing reads it too):
        the clean one's when ``payload`` is its bytes in its dialect; None: read it anew (a
        faulted first answer's content is not reused, as the dropped connection is marked
        on it)."""
        if dialect == self.dialect and payload == self.clean_bytes:
            return self.clean
        return None


def references(sc: Scenario, rec: Loaded, dialect: str, speed: float = 0.0) -> References:
    """The two answers the upstream may send (its first, with the fault, and a clean one
    after a retry), planned once each: their content, and how long the longer one takes at
    ``speed`` (a scenario's deadline counts from it)."""
    faults = parse_faults(sc.fault)
    first = make_plan(rec, speed=speed, faults=faults)
    clean = make_plan(rec, speed=speed) if faults else first  # no fault: one answer, one plan
    seconds = max(p.spans[-1][0] if p.spans else p.t_head for p in (first, clean))
    ref_first = content_of([first.body], dialect) if not first.json_body else None
    if ref_first is not None and first.ending == ABORT and ref_first.model.error is None:
        # A chunk or Gemini stream cannot say it was cut: the dropped connection does.
        ref_first.model.error = {"message": "the upstream connection dropped"}
        ref_first.error_at = ref_first.last
    if clean is first and ref_first is not None:  # one answer: read once (no fault mutates it)
        ref_clean = ref_first
    else:
        ref_clean = content_of([clean.body], dialect)
    expect = sc.expectation(ref_clean.model.error is not None)
    ended = first.ending == ABORT
    clean_bytes = b"" if ref_clean is ref_first and ended else clean.body
    return References(faults, expect, ref_first, ref_clean, ended, seconds, dialect, clean_bytes)
