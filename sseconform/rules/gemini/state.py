"""What a Gemini stream has said so far, as the V rules read it (the checker moves it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from sseconform.providers import GEMINI_FINISH_REASONS
from sseconform.sse.decoder import Event

#: finishReason values of the Gemini API and Vertex AI (the one list, in providers).
FINISH_REASONS = GEMINI_FINISH_REASONS


@dataclass(slots=True)
class FirstCall:
    """The stream's first function call: where it is and whether it carries a signature."""

    event: Event
    pointer: str
    name: str
    signed: bool


@dataclass(slots=True)
class CandidateState:
    """The candidate's progress; rules read it, the checker moves it."""

    chunks: int = 0
    index: int | None = None  # the first candidate's index
    finish: str | None = None  # the candidate's finishReason, once sent
    finished_at: Event | None = None  # the chunk that first sent it
    blocked: bool = False  # promptFeedback.blockReason: no candidate will come
    ended: Event | None = None  # an error chunk
    after_end_reported: bool = False
    thought_parts: int = 0
    thoughts_tokens: int = 0
    first_call: FirstCall | None = None
    streaming_call: bool = False  # a call streamed in parts (Vertex's `willContinue`) is open
    call_ids: set[str] = field(default_factory=set)
    ids: dict[str, str] = field(default_factory=dict)  # modelVersion, responseId: first seen
    usage: dict[str, int] = field(default_factory=dict)  # the last count of each usage field
