"""A finding: why a scenario failed, or a note that did not fail it, located in the gateway's
stream (frame, byte offset, the bytes found there) so it can be checked against the recording."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Finding"]


@dataclass(frozen=True, slots=True)
class Finding:
    """Why a scenario failed (or a note that did not fail it), located in the gateway stream."""

    source: str  # "check", "diff", "expect", "transport"
    code: str  # a rule code, a difference kind, or an expectation
    message: str
    severity: str = "error"
    frame: int | None = None
    offset: int | None = None
    excerpt: str | None = None  # the gateway's bytes at ``offset`` (its first line)
    field: str | None = None
    known: bool = False  # accepted by the baseline: reported, does not fail
    #: the conversation's turn it was found in (1: the first request, or the only one)
    turn: int = 1

    @property
    def key(self) -> str:
        """What a baseline names: a check code as is (``E002``), else ``source:code`` (a
        difference also names its field: ``diff:changed:usage.prompt_tokens``); a later
        turn's, after ``turnN:`` (``turn2:history:refused``)."""
        if self.source == "check":
            key = self.code
        elif self.source == "diff" and self.field:
            key = f"diff:{self.code}:{self.field}"
        else:
            key = f"{self.source}:{self.code}"
        return key if self.turn == 1 else f"turn{self.turn}:{key}"

    def to_dict(self) -> dict[str, Any]:
        """The fields, and the key a baseline names the finding by."""
        return {**{k: getattr(self, k) for k in self.__slots__}, "key": self.key}
