"""What the gate's own findings mean (a check finding is a rule: ``sseconform rule CODE``).

One short paragraph per source and code, shown beside each finding in the HTML report, so a
reader who did not write the gateway knows what happened and why a client cares.
"""

from __future__ import annotations

__all__ = ["codes", "explain", "first_sentence"]

_DIFF = {
    "lost": "Content the upstream sent never reached the client: the gateway dropped a delta "
    "(often one that arrived in the same read as another, or the last one before the end), "
    "on an HTTP error a header its clients act on (retry-after), or opaque state the client "
    "must send back on its next turn (a thinking block's signature, a reasoning item's "
    "encrypted_content, a thoughtSignature): without it the provider refuses that turn.",
    "duplicated": "The client received some content twice. A gateway that retries or fails "
    "over after the first delta has already gone out restarts the answer inside the same "
    "stream.",
    "extra": "The client received content the upstream never sent: an invented choice or "
    "call, text of the gateway's own, or (when many streams are in flight) another "
    "request's chunk.",
    "relabelled": "The upstream's reasoning reached the client as answer text (or the "
    "other way round): every character arrived, in the wrong field, so a client shows the "
    "model's thinking to the user as its answer.",
    "reordered": "The same pieces arrived in a different order than the upstream sent them.",
    "changed": "The client received something other than what the upstream sent at this "
    "place: a different text, name, argument value, finish reason or usage count, another "
    "HTTP status for the upstream's error (an error on a status clients give up on, where "
    "the upstream's is one they retry), or opaque state re-encoded on the way (a signature "
    "the provider will not verify when the client sends it back).",
    "missing": "Something the upstream's answer had (a choice, a finish reason, usage, an "
    "error) is absent from the gateway's stream.",
    "error": "The upstream failed and the gateway's stream says so differently (or not at "
    "all): a client cannot tell a cut answer from a whole one.",
    "usage": "The token counts differ from the upstream's, read with one definition on both "
    "sides: billing and context accounting built on them are wrong.",
}

_OTHER = {
    "expect:error-then-done": "The upstream failed mid-stream, yet the gateway's stream ends "
    "like a successful one: no error frame. Clients take the partial answer for the whole "
    "answer; the contract is an error frame, then the stream's normal end.",
    "expect:rejected": "The upstream refused the request before streaming (a status error). "
    "The gateway should answer with that status (or retry and succeed); it streamed or "
    "answered in a way a client cannot retry on.",
    "expect:failover": "The gateway sent another upstream request after the stream had "
    "started; a retry after the first delta can splice or duplicate content.",
    "expect:content": "The upstream streamed a whole answer and the gateway answered with an "
    "HTTP error instead.",
    "expect:error": "The upstream failed mid-stream; the gateway answered with an HTTP error "
    "and lost what had already been generated, or streamed no error at all.",
    "expect:content-or-error": "The gateway neither passed the whole answer on nor ended its "
    "stream with an error frame.",
    "transport:no-response": "The gateway never answered the request (refused, reset or "
    "timed out before a status line).",
    "transport:incomplete": "The gateway's stream did not end cleanly: the connection was "
    "reset, the chunked body was cut, or it stalled past the suite's timeout.",
    "transport:aborted": "The upstream dropped mid-stream and the gateway dropped its "
    "client's connection too, without a terminal event. Every client raises on the cut, so "
    "the failure is not hidden (a warning, not an error); an error event before the end "
    "would tell the client why. A gateway that ends the stream cleanly instead fails: no "
    "client can tell that answer from a whole one.",
    "transport:deadline": "The gateway was still sending when the scenario's deadline passed "
    "(twice the time the upstream took, plus a margin, unless --deadline sets it): it drips "
    "its answer, or streams past the upstream's end. A client waits on it until its own "
    "timeout, and a CI job would hang.",
    "transport:silent": "The gateway sent its response head (or part of its answer) and "
    "then nothing until the scenario's deadline: it holds the stream open without streaming "
    "(waiting on an upstream it never calls, or buffering what it got). A client waits on it "
    "until its own timeout. The message says for how long it was silent and after what.",
    "transport:head-too-large": "The gateway's response head was larger than an HTTP client "
    "takes (httpx and h11 refuse one over 100 KiB: a hundred thousand headers, or one header "
    "line of megabytes); no client can read the answer that follows it.",
    "transport:too-large": "The gateway sent far more than the upstream's answer could become "
    "(its cap is 16 MiB plus 16 times the upstream's body, unless --max-bytes sets it): a "
    "loop that re-sends content, or an answer that never ends. The recording stops at the cap.",
    "transport:decompression-bomb": "The gateway compressed its answer (though identity was "
    "asked for) into something that inflates a hundred times or more: a client that decodes "
    "it runs out of memory. sseconform stopped decoding it.",
    "transport:encoding": "The gateway answered with a content-encoding it was not asked for "
    "and that sseconform does not decode: a client that did not ask for it cannot read the "
    "stream. The bytes are kept as sent.",
    "upstream:not-reached": "The upstream never saw a request, so nothing was tested: the "
    "gateway is not routed to the replay upstream for this dialect (see --gateway-profile), "
    "or it refused the request itself (a 401 or 403: give its key with --key).",
    "upstream:refused": "The gateway called the upstream on a path or in a dialect this "
    "scenario does not serve, so nothing was tested.",
    "upstream:fault-not-fired": "The upstream was reached, but the fault the scenario is "
    "about never took effect (the gateway stopped reading first), so it was not tested.",
}


def explain(source: str, code: str) -> str:
    """The paragraph for a gate finding (``diff``, ``expect``, ``transport``, ``upstream``);
    empty for a check finding, whose docs are its rule's."""
    if source == "diff":
        return _DIFF.get(code, "")
    if source == "timing":  # its rule's docs, one place (gate/timing_rules)
        from sseconform.gate.timing_rules import find

        rule = find(code)
        return f"{rule.summary} {rule.doc.why}" if rule is not None else ""
    return _OTHER.get(f"{source}:{code}", "")


def codes() -> dict[str, str]:
    """Every gate finding code this module explains (``transport:silent``, ``diff:lost``),
    with its paragraph: for ``sseconform rules`` and ``sseconform rule CODE``."""
    out = {f"diff:{k}": v for k, v in _DIFF.items()}
    out.update(_OTHER)
    return dict(sorted(out.items()))


def first_sentence(text: str) -> str:
    """A paragraph's first sentence, as a finding's one-line description (site, SARIF)."""
    return text.split(". ")[0].rstrip(".") + "."
