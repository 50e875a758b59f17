"""upstream:*: whether the scenario was tested at all: the upstream reached, its fault fired.
A scenario with one of these is ``unreached``, not failed: nothing was tested."""

from __future__ import annotations

from sseconform.rules.catalog import Severity, define_gate
from sseconform.rules.docs import RuleDoc

_NOT_TESTED = (
    "None: the scenario says nothing about the gateway's clients, only that it could not "
    "run. A run where no scenario reached the upstream exits 1."
)

NOT_REACHED = define_gate(
    "upstream:not-reached",
    Severity.ERROR,
    "The upstream never saw a request, so nothing was tested.",
    RuleDoc(
        what="The replay upstream got no request for the scenario. The message quotes what "
        "the gateway answered instead (its error body or error frame) and a hint.",
        why="The gateway is not routed to the replay upstream for this dialect (see "
        "`--gateway-profile`), it refused the request itself (a 401 or 403: give its key "
        "with `--key`), or it could not translate the request.",
        clients=_NOT_TESTED,
        fix="Route the model the scenario names to the replay upstream (`--upstream-port`, "
        "the profile's config); if the gateway's own answer is an error, that error is the "
        "bug.",
    ),
)
REFUSED = define_gate(
    "upstream:refused",
    Severity.ERROR,
    "The gateway called the upstream on a path or in a dialect the scenario does not serve.",
    RuleDoc(
        what="The upstream was called, but on a path or in a dialect this scenario does not "
        "serve, so it answered 404 and nothing was tested.",
        why="The gateway maps the model to another provider than the scenario's (a chat "
        "upstream for an Anthropic scenario), or calls an endpoint of its own.",
        clients=_NOT_TESTED,
        fix="Map each scenario's model to the upstream dialect it names (the profile's "
        "routing table).",
    ),
)
FAULT_NOT_FIRED = define_gate(
    "upstream:fault-not-fired",
    Severity.ERROR,
    "The upstream was reached, but the scenario's fault never took effect.",
    RuleDoc(
        what="The upstream was reached, but the fault the scenario is about (a drop after "
        "some bytes, an error mid-stream) never fired.",
        why="The gateway stopped reading the upstream first (it cut the request short, or "
        "read only the head), so the fault was not tested.",
        clients=_NOT_TESTED,
        fix="Read the upstream's stream to its end; a gateway that stops early loses the "
        "answer's tail in real use too.",
    ),
)
