"""timing:upstream-not-streamed: the gateway called its upstream without streaming."""

from __future__ import annotations

from sseconform.findings import Finding
from sseconform.gate.timing import Budgets, Timing, timed
from sseconform.gate.timing_rules.base import TimingRule
from sseconform.rules.catalog import Severity
from sseconform.rules.docs import RuleDoc


def _check(tm: Timing, b: Budgets) -> Finding | None:
    if tm.upstream_whole_s is None:
        return None
    first = tm.gateway_first_token_s
    after = f"; its client's first token came at {first:.3f} s" if first is not None else ""
    return timed(
        "upstream-not-streamed",
        "the gateway asked its upstream for a whole answer, not a stream (replay answered "
        f"it at {tm.upstream_whole_s:.3f} s, when the recorded stream ended){after}: the "
        "client's stream could not start before the whole answer was generated",
        tm.first_token_at,
        severity=Severity.WARNING,
    )


RULE = TimingRule(
    "upstream-not-streamed",
    Severity.WARNING,
    None,
    "The gateway called its upstream without streaming, then streamed the finished answer.",
    RuleDoc(
        what=(
            "The replay upstream saw a non-streaming request (OpenAI chat without "
            "`stream: true`, Anthropic without `stream`, Gemini's `:generateContent`, "
            "Responses without `stream`) for a client that asked for a stream. replay "
            "answers it as the provider does, once, when its recorded stream would have "
            "ended; the gateway's client stream can only start after that. The other "
            "timing rules then judge what the client got against the stream the recording "
            "would have sent (its first token, each piece, its silences): for the client, "
            "a gateway that waits for the whole answer is a buffering one, and a slow "
            "stream through it fails as buffering does."
        ),
        why=(
            "Some gateways translate a dialect by calling it without streaming and cutting "
            "the finished answer into events (claude-code-router calls Gemini's "
            ":generateContent). Every token then waits for the last: the user sees nothing "
            "for the whole generation, and a long answer can pass a client's or a proxy's "
            "idle timeout before its first byte. A warning by itself (the answer is whole); "
            "the time it costs the client is judged by the other rules."
        ),
        clients=(
            "Every client reads the stream correctly; Claude Code shows nothing until the "
            "whole answer is there, and its request can time out on long answers."
        ),
        example=(
            "upstream  POST /v1beta/models/m:generateContent  -> one JSON answer at 0.99 s\n"
            "gateway   message_start ... message_stop          all within 2 ms of 0.99 s\n"
        ),
        fix=(
            "Call the upstream with streaming (Gemini: :streamGenerateContent?alt=sse) and "
            "translate each event as it arrives."
        ),
    ),
    _check,
)
