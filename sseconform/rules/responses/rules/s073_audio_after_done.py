"""S073 audio-after-done: The response's audio (or its transcript) goes on after its .done."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sseconform.rules.catalog import Severity, define
from sseconform.rules.docs import RuleDoc
from sseconform.rules.responses.hooks import AUDIO_AFTER_DONE

if TYPE_CHECKING:
    from sseconform.rules.responses.checker import ResponsesChecker
    from sseconform.sse.decoder import Event

RULE = define(
    "S073",
    "audio-after-done",
    Severity.WARNING,
    "done-matches-deltas",
    "The response's audio (or its transcript) goes on after its .done.",
    RuleDoc(
        what=(
            "A `response.audio.delta` after `response.audio.done`, or a "
            "`response.audio.transcript.delta` (or a second `.done`) after "
            "`response.audio.transcript.done`. These events belong to the response itself "
            "(openai-python's ResponseAudioDeltaEvent and its siblings carry no item id and no "
            "output index): deltas, then one `.done`."
        ),
        why=(
            "A gateway that merges two upstream streams, or replays a cached part after the "
            "live one, sends audio past its end. A client that assembles the audio at "
            "`.done` plays a clip without the bytes that came after it."
        ),
        clients=(
            "Measured (the client matrix): openai-python, the AI SDK's Responses provider and "
            "Codex CLI read this case's text answer whole; none of them assembles the audio, "
            "so nothing breaks in them (a warning). An application that assembles the base64 "
            "deltas itself and stops at `.done` loses the later bytes."
        ),
        fix="Send every audio delta before its `.done`, and one `.done` for each stream.",
    ),
)


@AUDIO_AFTER_DONE.on(RULE)
def check(c: ResponsesChecker, ev: Event, kind: str, prefix: str) -> None:
    """The response's audio (or its transcript) after its `.done`."""
    c.report(RULE, f"{kind} after {prefix}.done", ev, "/type")
