"""One gateway answer being graded: its recorded body (or what was kept of a stream read as
it arrived), its content as the endpoint's clients read it, and the findings so far, each
located by frame and byte offset with the bytes found there.
"""

from __future__ import annotations

from dataclasses import replace

from sseconform.api import check_file
from sseconform.findings import Finding
from sseconform.gate.content import Content, content_of
from sseconform.gate.timing import Timing
from sseconform.providers import ENDPOINT_DIALECT, ENDPOINT_GRAMMAR
from sseconform.recording.format import RecordingReader
from sseconform.rules.base import Settings
from sseconform.rules.catalog import Rule, Severity

__all__ = ["RETRIED", "Graded", "checked", "retried"]


class Graded:
    """Findings for one scenario, each located in the gateway's recorded body."""

    def __init__(
        self,
        path: str,
        status: int | None,
        allow: list[str],
        endpoint: str = "chat",
        *,
        whole: bool = False,
    ) -> None:
        self.path = path
        #: the answer to a non-streaming call (Gemini's ``:generateContent``): one object
        self.whole = whole
        self.status = status
        self.allow = set(allow)
        self.grammar = ENDPOINT_GRAMMAR[endpoint]
        #: the grammar ``check`` reads the answer in (a specification the profile claims)
        self.check_grammar = self.grammar
        self.findings: list[Finding] = []
        self.note = ""
        self.body = b""
        #: each read's (seconds after the request was sent, offset in the body)
        self.reads: list[tuple[float, int]] = []
        self.timing: Timing | None = None
        #: the gateway's response header names, lower-cased
        self.headers: set[str] = set()
        if status is not None:
            parts: list[bytes] = []
            size = 0
            with open(path, "rb") as fp:
                reader = RecordingReader(fp, path, by="gate")
                for t, data in reader.reads():
                    self.reads.append((t, size))
                    parts.append(data)
                    size += len(data)
                if reader.response is not None:
                    self.headers = {k.lower() for k, _ in reader.response.headers}
            self.body = b"".join(parts)
        # read as the endpoint's clients read it: chunks, or Anthropic / Responses events
        # through the reference translation, so it compares with the upstream by meaning
        dialect = ENDPOINT_DIALECT[endpoint]
        self.content = content_of([self.body], dialect, whole=whole) if self.ok_status else None
        self.starts = self.content.starts if self.content is not None else []
        #: check's findings when the stream was checked as it arrived (``load``): None,
        #: check the recording at ``path``
        self.checked: list[Finding] | None = None

    @classmethod
    def streamed(
        cls,
        status: int | None,
        content: Content | None,
        checked: list[Finding],
        allow: list[str],
        endpoint: str,
    ) -> Graded:
        """A stream that was checked and folded as it arrived, never kept: findings are
        located by frame and offset, with no excerpt."""
        g = cls.__new__(cls)
        g.path, g.status, g.allow, g.headers, g.whole = "", status, set(allow), set(), False
        g.grammar = g.check_grammar = ENDPOINT_GRAMMAR[endpoint]
        g.findings, g.note, g.body, g.reads, g.timing = [], "", b"", [], None
        g.content = content if g.ok_status else None
        g.starts = content.starts if content is not None else []
        g.checked = checked
        return g

    def event_start(self, frame: int | None, offset: int | None) -> int | None:
        """Where a finding is: the event start its source gives (check and the content fold
        both locate at event starts), or, for a frame alone, that frame's start."""
        if offset is not None and (offset < len(self.body) or self.checked is not None):
            return offset
        if frame is not None and 1 <= frame <= len(self.starts):
            return self.starts[frame - 1]
        return None

    @property
    def ok_status(self) -> bool:
        return self.status is not None and 200 <= self.status < 300

    def excerpt(self, offset: int | None) -> str | None:
        if offset is None or offset >= len(self.body):
            return None
        line = self.body[offset : offset + 120].split(b"\n", 1)[0]
        return line.decode("utf-8", "replace")

    def add(
        self,
        rule: Rule,
        message: str,
        *,
        severity: Severity | None = None,
        frame: int | None = None,
        offset: int | None = None,
        field: str | None = None,
    ) -> None:
        """One of the gate's findings, by its rule (at the rule's severity unless told)."""
        sev = rule.severity if severity is None else severity
        self.locate(
            Finding.of(rule, message, severity=sev, frame=frame, offset=offset, field=field)
        )

    def locate(self, f: Finding) -> None:
        """Add a finding at the start of its event, with the bytes found there."""
        offset = self.event_start(f.frame, f.offset)
        self.findings.append(replace(f, offset=offset, excerpt=self.excerpt(offset)))


#: statuses a client backs off and retries on (the SDKs' rule: 408, 409, 429 and 5xx)
RETRIED = frozenset({408, 409, 429})


def retried(status: int) -> bool:
    """Does a client back off and retry on this status? (tests/test_error_bodies.py)"""
    return status in RETRIED or status >= 500


def checked(g: Graded) -> None:
    """``check`` on the gateway's recording: errors fail, warnings are listed."""
    checked = g.checked
    if checked is None:
        settings = Settings(whole=True) if g.whole else None
        checked = check_file(g.path, settings, grammar=g.check_grammar).findings
    for d in checked:
        if d.code in g.allow:
            continue
        if d.severity == Severity.INFO:
            continue
        g.locate(
            replace(d, message=f"{d.name}: {d.message}",
                    offset=d.offset if d.frame is not None else None)
        )  # fmt: skip
